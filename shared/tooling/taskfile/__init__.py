"""Task files: writing them from a protocol spec, and reading them back without executing them."""
