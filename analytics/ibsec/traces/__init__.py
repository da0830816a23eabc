"""ibsec traces as Python reads them: the one reader (`reader`) and the engine's op table (`ops`)."""
