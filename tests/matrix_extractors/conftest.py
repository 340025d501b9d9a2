"""The scripts here are extractors run as commands, not test modules."""

collect_ignore_glob = ["cmd_*.py"]
