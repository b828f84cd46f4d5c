"""Every threshold of the scanned-page pipeline in one frozen object (like pdfplumber's ``TableSettings``).

Lengths are in PDF points (converted to pixels with the page's pixels-per-point), grey levels in 0-255.
The defaults were chosen on development pages only: the real development pages of ``datasets/realpdfs``
(``split.json``) and the development pages of the own corpus (``datasets/guidelines/parser_split.json``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from dkg.parsing.settings import AssemblySettings


class ScanRoute(StrEnum):
    """Which reader turns a page image into primitives.

    ``pipeline``: the named-step pipeline of this package; ``legacy``: the older rule-based reader
    (``dkg.parsing.raster``); ``hybrid``: legacy first, the pipeline when legacy finds fewer than
    ``ScanSettings.hybrid_legacy_edges`` edges, or fewer than ``hybrid_legacy_edge_share`` of its boxes (the
    reading with more edges is kept), or cannot read the page.
    """

    PIPELINE = "pipeline"
    LEGACY = "legacy"
    HYBRID = "hybrid"


@dataclass(frozen=True)
class ScanSettings:
    """Thresholds of the steps binarise/deskew → shapes → connectors and arrowheads → text per shape."""

    # binarise / deskew
    adaptive_block_pt: float = 6.0  # neighbourhood of the adaptive (Gaussian) threshold
    adaptive_offset: int = 14  # grey levels darker than the neighbourhood mean that count as ink
    paper_percentile: float = 90.0  # the page's paper tone: this percentile of its grey levels
    fill_margin: int = 12  # grey levels below the local paper tone that count as a shaded fill
    faint_margin: int = 3  # ... and the pale end of a graded fill, to which a shaded box is grown
    faint_share: float = 0.7  # a row or column this much faint fill along a box's side still belongs to it
    background_window: float = 0.3  # share of the page width over which the paper tone is taken
    background_reduction: int = 8  # the paper tone is computed on a copy this many times smaller
    max_skew_deg: float = 5.0
    # a thick grey line (cbrn-12's band outlines, about 3.5 pt of grey 100) comes out of the adaptive threshold
    # as two thin lines: a gap up to ``solid_line_gap_pt`` wide between ink that is at least
    # ``solid_line_margin`` grey levels below the paper tone is ink too; 0 turns it off
    solid_line_margin: int = 60
    solid_line_gap_pt: float = 1.5
    solid_line_core_pt: float = 0.8
    # shapes
    min_box_width_pt: float = 18.0
    min_box_height_pt: float = 9.0
    max_box_page_share: float = 0.5  # a "box" larger than this share of the page is a frame, not a box
    min_rectangularity: float = 0.8  # contour area / bbox area of a rectangle (rounded corners included)
    diamond_fill: tuple[float, float] = (0.4, 0.65)  # contour area / bbox area of a diamond
    # ... whose four corners each lie this share of a side's length from that side's middle (a band with a
    # chevron under it fills as much, but its corners are the band's)
    diamond_vertex_tolerance: float = 0.25
    fill_open_pt: float = 6.0  # opening that removes text, lines and arrowheads from the fill mask
    duplicate_overlap: float = 0.6  # two candidates sharing this share of the smaller one are one box
    border_pt: float = 1.0  # outline thickness added around a box found by its inside
    # a box whose inside has a median grey below this is filled dark, so the text it carries is light: a title
    # bar (mid-grey; on the dev scans title bars read 99-102, every other box 202 or lighter)
    dark_fill_grey: int = 128
    min_text_ink: float = 0.01  # share of a box's inside that must be ink (else connectors fence it in)
    # two graded boxes stacked edge to edge whose thin shared border the scan lost (smog-48 "CPR 2 min" on "IV /
    # IO access"): the paper tone inside the hole (a grey closing ``stack_tone_pt`` wide, so no text) rises by at
    # least ``stack_step_grey`` grey levels within ``stack_step_pt`` down the box, where the dark foot of the
    # upper fill meets the light head of the lower one, and falls nowhere by half as much (a light band, such as
    # white text on a dark header, is no step); each part at least ``min_box_height_pt`` tall. 0 turns it off
    stack_step_grey: float = 25.0
    stack_step_pt: float = 1.0
    stack_tone_pt: float = 4.0
    # connectors and arrowheads
    box_clearance_pt: float = 2.0  # ink this close to a box is its border or shadow, not a connector
    line_min_pt: float = 8.0  # shortest straight run that is a connector stroke
    line_max_thickness_pt: float = 3.0  # thicker runs are fills or bars, not strokes
    dash_gap_pt: float = 2.5  # gaps of dashed lines bridged along the line
    head_open_pt: float = 1.4  # opening wider than a stroke: what survives is a solid arrowhead
    head_min_pt: float = 2.0
    head_max_pt: float = 16.0
    # a solid head is about as wide as long: a blob narrower than this share of its length is a stretch of a
    # stroke thickened by the scan (where it leaves a box's shadow), not an arrowhead
    head_min_aspect: float = 0.5
    head_reach_pt: float = 4.0  # an arrowhead lies within this of a stroke's end
    attach_pt: float = 9.0  # a stroke end this far short of a box (its erased border and shadow) reaches it
    # the chevron's outline reaches this far beyond its inside (a thick outline: cbrn-12's are 3.5 pt), all of
    # it blanked from the OCR of the box under the tip
    chevron_blank_pt: float = 6.0
    stub_max_pt: float = 14.0  # the longest stem of an arrow between two boxes that may be lost in a scan
    snap_pt: float = 20.0  # a shaded box whose fill fades out is widened to a border stroke this close
    snap_cover: float = 0.8  # ... that runs along this share of the box's side
    # straight runs along a box's side (together ``outer_border_cover`` of it), at most ``outer_border_pt`` outside
    # it and no further past its ends, are the box's outer border (a bevelled or double outline), erased with the
    # box; the pale bevel of smog-43's boxes fades out at one end and a head touching it breaks it (0.76 of the
    # side at 200 dpi); a connector does not run along a box that close. 0 keeps such runs as lines
    outer_border_pt: float = 4.0
    outer_border_cover: float = 0.6
    # connector networks (skeleton graph of the line ink): a chain's polyline keeps within this of its pixels,
    # and a loose whisker shorter than ``network_spur_pt`` hanging off a joint is a skeleton artefact
    trace_networks: bool = True
    network_tolerance_pt: float = 1.5
    network_spur_pt: float = 2.0
    # the ring around a solid blob (inner, outer distance) in which the lines leaving it are counted: more
    # than one make it a joint (or a head on a line running through), not an arrowhead ending a line
    head_ring_pt: tuple[float, float] = (0.7, 2.5)
    # text
    box_psm: int = 6  # tesseract page segmentation for the text of one box (a uniform block)
    free_psm: int = 11  # for text outside boxes (sparse text)
    box_inset_pt: float = 2.0
    # a box line's word made only of these signs is joined to the word before it (no space is set before them;
    # tesseract splits one off where the blur widened the gap: ``Shockable ?``); empty turns it off
    closing_signs: str = "?!:;,.)"
    # an arrow running into a box's crop across a side (a solid head standing at least ``edge_arrow_clear_pt`` clear
    # of the crop's sides, its stem reaching one) is painted over before OCR (tesseract reads its head as ``v``)
    edge_arrows: bool = True
    edge_arrow_clear_pt: float = 1.0
    edge_arrow_stem_pt: float = 2.0  # the stem between the head and the side it crosses, at least this long
    edge_arrow_head_ratio: float = 3.0  # and the head at least this many times as wide as the stem
    # a lone ``|`` in a box's text is a capital I between two words of a line, and at a line's start when the next
    # word begins within this share of the bar's height (a word gap; smog-41 ``| (PR`` opens a line 0.39 of it away)
    bar_word_gap: float = 0.5
    # a single letter this many times as tall as the other words of its line is a pictogram read as a letter
    # (a biohazard sign read ``A``, with high confidence); 0 keeps it
    pictogram_height_ratio: float = 2.0
    # a column or row of a box's crop that is ink along this share of its length, within ``border_line_zone`` of
    # the crop's size from a side, is a border line: the crop is blanked from it outwards (dev box crops: columns
    # of text reach 0.79 at most, in boxes one line tall where a stem spans the crop; borders left in a crop
    # 0.83-1.0); 0 turns it off
    border_line_share: float = 0.8
    border_line_zone: float = 0.15
    # ink reaching into a box's crop across its top no deeper than this is the end of something above the box (a
    # label's descenders) and is painted over with the fill: tesseract reads it as a bar and the words of a one-line
    # box glued (smog-48 ``CPR2min`` under ``10J/kg``: 1 pt deep; a letter touching the top is 5 pt and more, so
    # 1.5 pt keeps clear of it on dev); 0 keeps it. The bottom is not touched: a graded fill's dark last rows make
    # such pieces there, and painting them over changed other dev boxes' last lines (smog-43, 2 edges lost)
    edge_fragment_pt: float = 1.5
    # a last word of a box line made of signs only, more than this many line heights from the word before it, is
    # a pictogram or speck (smog-48's star read ``*``, 3.4 heights away; punctuation stands within 0.5); 0 keeps it
    lone_sign_gap: float = 2.0
    # a list marker drawn as a pictogram (a flag, a check box) that tesseract reads as a capital letter: the same
    # letter (not the words A and I) opening at least this many lines of one box, their left ends within
    # ``marker_align`` of a line's height of each other, each at least ``marker_gap`` of its height before the next
    # word (a hanging indent, not a word space), is dropped; 0 keeps them. cbrn-12's flags read ``P`` at 200 dpi:
    # 1.09-1.18 heights before their words, where the words of those lines stand at most 0.45 apart
    marker_min_lines: int = 2
    marker_align: float = 0.5
    marker_gap: float = 0.7
    # a bullet tesseract did not read (in a box where another line opens with a bullet it read): a solid dot of ink
    # (``bullet_fill`` of its bounding box, as wide as tall within ``bullet_aspect``) this share (min, max) of the
    # line's height across, ending at most ``bullet_gap`` line heights before the line's first word (smog-43's
    # bullets: 0.5 of the line, 0.45 before it); a largest size of 0 turns it off
    bullet_size: tuple[float, float] = (0.2, 0.6)
    bullet_aspect: tuple[float, float] = (0.6, 1.6)
    bullet_gap: float = 1.0
    bullet_fill: float = 0.6
    # a free word's box that tesseract stretched over a connector beside it (``NO`` and its arrow read as one word)
    # is cut down to its letters: an ink piece in it more than this many times as long as the median height of the
    # word's pieces, holding a straight run of ``line_min_pt`` along that axis and nothing letter-sized besides it
    # and a solid head, is a line; 0 keeps tesseract's boxes
    free_line_ratio: float = 1.5
    # a free word of at most this many characters standing over a solid arrowhead is the head read as a letter
    # (``v`` over a short arrow between two stacked boxes); 0 keeps such words
    free_head_max_chars: int = 1
    free_head_share: tuple[float, float] = (0.8, 0.75)  # the head's share of the word's box across, along (at most)
    free_head_stem: float = 0.8  # ... with its stem: ink along this share of the rest of the box on its longer side
    # a box line read with a mean confidence (per character) below ``weak_line_conf`` is read again from the box's
    # crop divided by its background (a grey closing ``flat_field_pt`` across, wider than a stroke): tesseract
    # thresholds a crop once, and a graded fill darker at the bottom swallows the last line (smog-41 ``(MAX 3mg)``
    # read ``DMA Deng) eal es`` at 32, ``(MAX 3mg)`` at 92 from the flattened crop). The second reading replaces
    # the line when it is one line there and read with more confidence. Dev scans at 200 dpi: the same edge F1
    # for 50-70 and 5-10 pt; 0 turns it off
    weak_line_conf: float = 60.0
    flat_field_pt: float = 7.5
    min_box_conf: float = 10.0  # tesseract word confidence kept inside boxes
    min_free_conf: float = 50.0  # and outside them (connector labels, titles), where noise is likelier
    # a capitalised branch label read glued to the arrow running into it (smog-46 ``<—yYES``, confidence 46) is
    # kept, cut down to the label, when read with at least this confidence
    glued_label_min_conf: float = 30.0
    # a word outside the boxes this many times taller than the median confidently read word (conf at least
    # ``free_tall_conf``) and read with less confidence than that is a slanted arrow read as text, not a word
    free_tall_ratio: float = 2.0
    free_tall_conf: float = 75.0
    # OCR misreads: a word that becomes exactly one clinical abbreviation or unit of ``readings.TERMS_FILE`` by
    # swapping at most this many look-alike characters (``IO`` read ``10``, ``mcg`` read ``meg``) is that
    # entry; 0 keeps tesseract's words as read
    misread_max_swaps: int = 2
    ocr_timeout_s: float = 60.0
    route: ScanRoute = ScanRoute.HYBRID
    # hybrid route: a page where the rule-based reader finds fewer edges than this is also read by the pipeline,
    # and the reading with more edges is kept (on real dev scans the rule-based reader finds one or two stray
    # edges, smog-50 and cbrn-12; own-corpus pages have at least 7 edges each)
    hybrid_legacy_edges: int = 3
    # ... or fewer edges than this share of the boxes it found: a sparse reading, most boxes left unconnected
    # (cbrn-12 scanned at 150 dpi: 8 edges among 15 boxes, where the pipeline finds 26 among 31; own-corpus dev
    # pages read by the rule-based reader have at least 0.77 edges a box); 0 turns it off
    hybrid_legacy_edge_share: float = 0.65
    # assembly of the pipeline's pages: its shapes are box insides grown by ``border_pt``, so boxes stacked
    # edge to edge (each with its own outline) overlap by two borders; unlike the rule-based reader's traced
    # outlines (``dkg.parsing.settings.SCANNED_SETTINGS``), they must not merge as pieces of one box; its
    # connectors are traced networks, so stroke ends on two sides of a branch word are a line broken for it; a
    # label's OCR box is cut from a word read glued to its arrow, so it may stand a little further from the
    # strokes than a born-digital label's (smog-46 ``YES`` 11 pt from the head pointing at it; smog-41 ``No``
    # 13.2 pt from the line it interrupts, cut from ``—No``); cells of a table row found by their insides overlap
    # by their two grown borders and their tops differ by a scan's wobble; a chevron's tip is the lowest point of
    # the box's inside, its outline and a gap below it
    pipeline_assembly: AssemblySettings = AssemblySettings(label_broken_line_scanned=True, label_on_connector=14.0,
                                                           row_overlap=2.5, row_align_tol=3.0, pointer_reach=24.0)


DEFAULT_SETTINGS = ScanSettings()
