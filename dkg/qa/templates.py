"""Question wording for the CPG-QA generator: paraphrase frames, vignette pieces, distractors and typos.

Frames are grouped by question type; every frame has an id. The frames listed in ``UNSEEN`` are
never used for training items: they form the unseen-template test split.

Two registers: written-out questions (``{patient}`` / ``{patient_inline}``) and clinicians' notes
(``{note}``: "22F, Ph+ B-ALL, ECOG 1, no comorbs." — age/sex shorthand, the clinical lexicon's own
wordings of each fact, negated concepts, history, terse asks with or without a question mark). No frame
names a guideline: ``{disease}`` is filled from the guideline's names, facts from the graph's paths.
"""

from __future__ import annotations

import random
import re

# {patient} = narrative vignette, {disease} = guideline wording, {treatment} = a treatment phrase.
FRAMES: dict[str, dict[str, str]] = {
    "next_step": {
        "n01": "{patient} What is the next recommended step?",
        "n02": "{patient} What treatment does the guideline recommend next?",
        "n03": "What should be done next for {patient_inline}?",
        "n04": "{patient} Which therapy is recommended at this point?",
        "n05": "Next step in management for {patient_inline}?",
        "n06": "According to the {disease} guideline, how should {patient_inline} be managed?",
        "n07": "{patient} How would you proceed?",
        "n08": "Recommended treatment: {patient_inline}.",
        "n09": "{patient} What does the pathway suggest now?",
        "n10": "I have {patient_inline}. What do we do next?",
        "n11": "Please advise on next management for {patient_inline}.",
        "n12": "{patient} What is the guideline-recommended approach?",
        "n13": "For {patient_inline}, what is recommended?",
        "n14": "{patient} Options?",
        # clinicians' notes
        "n20": "{note} Plan?",
        "n21": "{note} next step",
        "n22": "{note} what now?",
        "n23": "{note} Mgmt?",
        "n24": "{note} how do we proceed",
        "n25": "{note} What would the guideline have us do next?",
        "n26": "Q re {note_inline}: next?",
        "n27": "{note} what do we do now",
        "n28": "{note} Recommended tx?",
        "n29": "Seen in clinic today - {note} Where do we go from here?",
        "n30": "{note} what's next in the pathway",
        "n31": "{note} thoughts on next steps?",
        # held out (unseen-template split)
        "n94": "{note} Your recommendation for next line?",
        "n90": "Given {patient_inline}, which step comes next in the pathway?",
        "n91": "{patient} Per the DKG, what would be the appropriate next move?",
        "n92": "Case: {patient_inline}. Guideline says to do what now?",
        "n93": "What is the standard next intervention for {patient_inline}?",
    },
    "advise": {
        "a01": "{patient} Is {treatment} appropriate?",
        "a02": "Should {patient_inline} receive {treatment}?",
        "a03": "{patient} Would you recommend {treatment}?",
        "a04": "Is {treatment} indicated for {patient_inline}?",
        "a05": "{patient} Can we give {treatment}?",
        "a06": "Is {treatment} a recommended option for {patient_inline}?",
        "a07": "{patient} Is {treatment} advisable at this point?",
        "a08": "Would {treatment} be in line with the guideline for {patient_inline}?",
        "a09": "{patient} Does the guideline support {treatment}?",
        "a10": "Is it reasonable to start {treatment} in {patient_inline}?",
        # clinicians' notes
        "a20": "{note} ok to give {treatment}?",
        "a21": "{note} {treatment} reasonable?",
        "a22": "{note} Thinking of {treatment} - appropriate?",
        "a23": "Would you give {treatment}? {note}",
        "a24": "{note} is {treatment} an option",
        "a25": "{note} Planning {treatment}. Is that in line with the guideline?",
        "a26": "{note} should we start {treatment}",
        "a27": "{note} Can we go with {treatment}?",
        "a28": "{treatment} for {note_inline} - recommended or not?",
        "a29": "{note} team suggests {treatment}; is it recommended?",
        # held out
        "a93": "{note} Is {treatment} supported here?",
        "a90": "Considering {patient_inline}, is {treatment} a guideline-concordant choice?",
        "a91": "{patient} Would {treatment} be an acceptable next treatment?",
        "a92": "Could {patient_inline} be offered {treatment}?",
    },
    "conditions": {
        "c01": "Which patients should receive {treatment} in {disease}?",
        "c02": "What conditions must a patient meet to be given {treatment} ({disease})?",
        "c03": "In {disease}, when is {treatment} recommended?",
        "c04": "Who is eligible for {treatment} according to the {disease} guideline?",
        "c05": "What criteria lead to {treatment} in {disease}?",
        "c06": "{disease}: for which patients is {treatment} the recommended step?",
        "c07": "Under what circumstances does the {disease} pathway recommend {treatment}?",
        "c08": "When should I consider {treatment} for {disease}?",
        "c09": "What patient characteristics are required for {treatment} in {disease}?",
        "c10": "{treatment} in {disease}: which patients?",
        # clinicians' shorthand
        "c20": "when do we use {treatment} in {disease}",
        "c21": "{treatment} - indications in {disease}?",
        "c22": "who gets {treatment} for {disease}?",
        "c23": "{disease}: when is {treatment} recommended",
        "c24": "in {disease} which pts should get {treatment}?",
        "c25": "criteria for {treatment} ({disease})?",
        "c26": "{disease} - when would the guideline use {treatment}",
        "c27": "for which {disease} patients is {treatment} recommended?",
        # held out
        "c93": "{disease}, {treatment}: who qualifies?",
        "c90": "For {disease}, describe the patient profile that qualifies for {treatment}.",
        "c91": "Which clinical situation in {disease} calls for {treatment}?",
        "c92": "What must be true of a {disease} patient before {treatment} is advised?",
    },
}
UNSEEN = frozenset({"n90", "n91", "n92", "n93", "n94", "a90", "a91", "a92", "a93", "c90", "c91", "c92", "c93"})

SUBJECTS = ("woman", "man", "patient", "female patient", "male patient", "gentleman", "lady", "person")
DISTRACTORS = (
    "She works as a teacher.", "He is a retired engineer.", "The patient is a non-smoker.",
    "There is no family history of cancer.", "The patient lives with a partner.", "BMI is normal.",
    "The patient asks about work during therapy.", "Vaccinations are up to date.", "No known drug allergies.",
    "The patient travelled recently.", "Hypertension is well controlled.", "The patient enjoys running.",
)
# clinicians' asides that state no fact
NOTE_DISTRACTORS = (
    "NKDA.", "Lives w/ partner.", "Non-smoker.", "Works full time.", "Keen to keep working.", "Family aware.",
    "Seen with daughter.", "Asking about travel.", "Drives to clinic.", "Vaccinations up to date.",
)
# the course so far, written as clinicians do; (key, value) → wordings (kept only when the facts reader agrees)
HISTORY: dict[tuple[str, str], tuple[str, ...]] = {
    ("prior_therapy", "surgery"): ("s/p resection", "post-op", "had surgery", "after resection"),
    ("prior_therapy", "chemotherapy"): ("had chemo", "after chemotherapy", "prior chemotherapy"),
    ("prior_therapy", "radiation"): ("prior RT", "after radiotherapy", "had radiation"),
    ("prior_therapy", "immunotherapy"): ("progressed on nivolumab", "after pembrolizumab",
                                         "prior checkpoint inhibitor"),
    ("prior_therapy", "tki"): ("on dasatinib", "prior TKI", "after imatinib"),
    ("prior_therapy", "none"): ("treatment-naive", "untreated", "no prior therapy"),
    ("response", "cr"): ("in CR", "CR after induction", "achieved complete remission"),
    ("response", "less_than_cr"): ("not in remission", "<CR after induction", "failed to achieve CR"),
    ("disease_status", "relapsed"): ("relapsed", "now relapsed", "first relapse"),
    ("disease_status", "newly_diagnosed"): ("new dx", "newly diagnosed", "newly dx"),
}
_TYPO_SKIP = re.compile(r"[{}]")


def age_phrase(rng: random.Random, age: float, band: tuple[int, int] | None, subject: str) -> str:
    """The subject phrase carrying the age (a number or a band)."""
    n = int(age)
    if band is not None:
        lo, hi = band
        pron = "her" if subject in ("woman", "lady", "female patient") else "his" if subject in (
            "man", "gentleman", "male patient") else "their"
        decade = lo - lo % 10
        names = {10: "teens", 20: "twenties", 30: "thirties", 40: "forties", 50: "fifties", 60: "sixties",
                 70: "seventies", 80: "eighties", 90: "nineties"}
        if hi - lo == 9 or (decade == 10 and (lo, hi) == (13, 19)):
            word = names[decade] if rng.random() < 0.5 else f"{decade}s"
            if decade == 10:
                word = "teens"
            return f"a {subject} in {pron} {word}"
        part = "early" if lo % 10 == 0 else "mid" if lo % 10 == 4 else "late"
        return f"a {subject} in {pron} {part} {decade}s"
    return rng.choice((f"a {n}-year-old {subject}", f"a {subject} aged {n}", f"a {n} y/o {subject}",
                       f"a {subject}, age {n},", f"a {n} year old {subject}"))


def age_sex_shorthand(rng: random.Random, age: float, band: tuple[int, int] | None) -> str:
    """Clinicians' age/sex token: 22F, 68 M, 52 yo M, 58yo woman, 19 y/o F (a decade band when no number)."""
    if band is not None:
        return age_phrase(rng, age, band, rng.choice(SUBJECTS)).removeprefix("a ")
    n = int(age)
    sex = rng.choice(("F", "M"))
    word = {"F": rng.choice(("woman", "female", "F")), "M": rng.choice(("man", "male", "M"))}[sex]
    return rng.choice((f"{n}{sex}", f"{n} {sex}", f"{n} yo {sex}", f"{n}yo {word}", f"{n} y/o {sex}",
                       f"{n}{sex.lower()}"))


def clinicians_register(frame_id: str) -> bool:
    """Frames n20–n89, a20–a89, c20–c89 (and their held-out kin n94, a93, c93) are written as notes."""
    number = int(frame_id[1:])
    return 20 <= number < 90 or frame_id in {"n94", "a93", "c93"}


def note_ending(rng: random.Random, text: str) -> str:
    """Notes end with '?', '.', or nothing; some start in lower case."""
    roll = rng.random()
    if roll < 0.25:
        text = text.rstrip("?.")
    elif roll < 0.35:
        text = text.rstrip("?.") + "??"
    if rng.random() < 0.3:
        text = text[0].lower() + text[1:]
    return text


def typo(rng: random.Random, text: str, keep: str = "") -> str:
    """Swap two letters inside one longer word of the frame (placeholders and the words of ``keep`` untouched)."""
    words = text.split(" ")
    kept = set(keep.casefold().split())
    candidates = [i for i, w in enumerate(words) if len(w) > 5 and w.isalpha() and not _TYPO_SKIP.search(w)
                  and w.casefold() not in kept]
    if not candidates:
        return text
    i = rng.choice(candidates)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)
