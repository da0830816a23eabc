"""Models beside the cycle-level engine: Markov ON/OFF capacity, NAS presets, ON/OFF cache simulation, hardware cost."""
