"""Real MPI programs as ibsec traces: running them under libibsec_capture (traces/capture/), and the NAS
Parallel Benchmarks (NPB 3.4, MPI) built from their unmodified source (docs/real-traces.md)."""
