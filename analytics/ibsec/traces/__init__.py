"""ibsec traces as Python reads them: the one reader (`reader`), the engine's op table (`ops`) and other tools'
traces through their cached imports (`imported`)."""
