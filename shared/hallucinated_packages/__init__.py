"""hallucinated-packages: find invented packages and invented functions in model-written code.

Registry checks, import-name mapping and symbol gates read the live PyPI and npm registries and
the published artifacts; nothing is ever installed or executed.
"""
