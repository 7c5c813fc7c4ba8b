"""Human studies (`playbench study create`, `playbench serve --study DIR`): a study folder with a balanced,
counterbalanced assignment of instances to participants, one secret link per participant and an admin
secret, served by an app that shows each participant only their own assigned episodes, with the web
app's play code (`playbench.web.play`) and a security model fit for a public network (see README.md).

Modules: `design` (the assignment), `tokens` (links, hashes, CSRF), `config` (the folder: creating and
loading it), `manager` (the games of a study), `pages` (HTML), `app` (the FastAPI app and its walls),
`routes` (the participants' routes), `admin` (the admin's routes), `results` (the report's human row).
"""
