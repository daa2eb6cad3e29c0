"""tablecall's web side: the command line, the Flask dashboard, the event store and live updates."""
