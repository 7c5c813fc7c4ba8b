"""The parts of the scripted model server (`playbench.testing.scripted_server`), by what they do.

`requests.py` reads request bodies of all three wires (the text, system prompt, images and token
estimate that tests and usage look at); `validation.py` checks requests as strictly as the real
OpenAI, Anthropic and Gemini APIs; `scripting.py` holds what a test scripts (`ScriptedReply`,
`ScriptedFailure`, the fault kinds); `bodies.py` builds the replies and error bodies each wire
sends; `handler.py` is the HTTP request handler that ties them together. The server itself, its
command line and the names tests import stay in `scripted_server.py`, which re-exports these.
"""
