"""Theory of Space: active spatial exploration, spatial questions, cognitive maps, false belief."""
