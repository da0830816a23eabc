"""What ibsec writes: files written atomically, and figures saved with their table and command."""
