"""ibsec-engine, the C++ simulator: finding and running it, its configuration files, its names, one run as a point."""
