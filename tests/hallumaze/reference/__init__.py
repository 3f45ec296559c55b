"""The hallumaze scorer as it stood at commit 3b491ca, kept verbatim as the differential-testing reference.

Faster scorers must give byte-identical rows; `test_reference_scorer` compares them with these
copies (parse, verify, score, original_scoring, metrics, calibration, lures, compact; imports of unchanged
modules point at `hallubench.hallumaze`). Never optimise these files: they are the definition.
"""
