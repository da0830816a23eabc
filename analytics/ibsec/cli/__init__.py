"""The `ibsec` command: one module per command, assembled in main.py."""
