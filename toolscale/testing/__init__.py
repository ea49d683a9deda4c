"""Test doubles the tests and the benches share: a fake OpenAI-compatible server
(`fakellm`), a scripted model for a tiny library domain (`fakedomain`), and the hand-written
banking reference environment (`banking`)."""
