"""Built-in prop chains (one JSON file per level) and the story pool (data only)."""
