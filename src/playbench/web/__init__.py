"""The web app (`playbench serve`) and the static HTML report (`playbench report --html`).

`server` needs the `web` extra (FastAPI, uvicorn); `export` and `render` need only the core.
"""
