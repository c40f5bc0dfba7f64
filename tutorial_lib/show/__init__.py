"""What the notebooks show: `display` (tables and coloured tokens), `palette` (the colours),
`plotting` and `widgets` (a module per part). They lay out what the library computed and compute
nothing of their own."""
