"""Models beside the cycle-level engine: Markov ON/OFF capacity, NAS presets, the ON/OFF cache simulation, hardware cost."""
