"""CACTI 7 figures for the SKC and prefetch buffer: its output format, the tables of results, live runs."""
