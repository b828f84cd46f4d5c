"""Decision Knowledge Graph (DKG) platform for clinical practice guidelines.

Decision support for professionals; never a substitute for clinical judgement.
"""

__version__ = "0.1.0"

MEDICAL_DISCLAIMER = (
    "Decision support for qualified professionals only. The shipped guidelines are illustrative "
    "content authored for software testing, not clinical advice; never a substitute for clinical judgement."
)
