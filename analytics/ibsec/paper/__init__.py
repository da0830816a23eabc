"""The paper's studies: figures, workload replays, coscheduling mixes, `ibsec reproduce` and its REPORT.md."""
