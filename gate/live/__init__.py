"""The read-only cluster reader and the recorder. Nothing here binds, creates, patches,
deletes or watches."""
