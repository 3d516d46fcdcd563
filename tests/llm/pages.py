"""Page text for the LLM suite's loopback web: facts a model can cite."""

NIMBUS_FACTS = [
    "The Nimbus client waits thirty seconds for a response before it gives up on a request, "
    "and the timeout can be changed with the NIMBUS_TIMEOUT variable in every release.",
    "Retries use exponential backoff starting at half a second, so a flaky network costs "
    "little while an outage is reported quickly to the caller that made the request.",
]
