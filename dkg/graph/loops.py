"""Arrows that close a loop in a flowchart ("reassess → repeat CPR → reassess").

The QA walks of ``cypher/qa.cypher`` enumerate every trail from the roots; on a graph with cycles the number of
trails grows combinatorially and a next-step question times out. A loop arrow always returns to a box already on
the way from a root (a depth-first ancestor), so every step it leads to is reached without it: the walks skip
arrows marked ``loop`` and stay exact, while the arrow stays in the graph for display, retrieval and review.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import networkx as nx


def loop_arrows(nodes: Sequence[str], arrows: Iterable[tuple[str, str]]) -> frozenset[tuple[str, str]]:
    """The (head, tail) arrows that go back to a depth-first ancestor, searching from the roots first and
    visiting boxes and arrows in the given (drawing) order; a cycle no root reaches is entered at its first
    box. Removing the returned arrows leaves the graph acyclic.

    >>> sorted(loop_arrows(["start", "check", "cpr", "stop"],
    ...                    [("start", "check"), ("check", "cpr"), ("cpr", "check"), ("check", "stop")]))
    [('cpr', 'check')]
    """
    drawn = nx.DiGraph()
    drawn.add_nodes_from(nodes)
    drawn.add_edges_from(arrows)
    graph = nx.DiGraph()  # the same graph with the roots first: one search, so each cycle loses one arrow only
    graph.add_nodes_from(sorted(drawn, key=lambda n: drawn.in_degree(n) > 0))
    graph.add_edges_from(drawn.edges)
    found: set[tuple[str, str]] = set()
    on_stack: set[str] = set()
    for head, tail, kind in nx.dfs_labeled_edges(graph):
        if kind == "forward":
            on_stack.add(tail)
        elif kind == "reverse":
            on_stack.discard(tail)
        elif kind == "nontree" and tail in on_stack:
            found.add((head, tail))
    return frozenset(found)


__all__ = ["loop_arrows"]
