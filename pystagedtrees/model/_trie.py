"""Numbers of the situations of deep variables: a trie of the observed paths.

Situations are numbered in mixed radix (the root slowest, as in R) while
that fits an int64: up to :data:`MAX_SITUATIONS` per variable.  The later,
*deep*, variables number their situations by the paths a model was built
from instead: a situation of a deep variable is the place of its path among
the trie's paths of that variable, in path order (the order of the
mixed-radix indices it would have), and every situation outside the trie
shares one last number, ``n_nodes(i)``.  So the sparse stage vectors, which
list observed situations by sorted index and give every other one a default
stage, work on deep variables unchanged, and memory follows the observed
situations, however many variables.
"""
import math

import numpy as np

__all__ = ["MAX_SITUATIONS", "SituationTrie", "first_deep_variable"]

MAX_SITUATIONS = 1 << 62
"""Situations of a variable numbered in mixed radix at most (int64 indices)."""


def first_deep_variable(n_levels):
    """Position of the first variable with more than :data:`MAX_SITUATIONS`
    situations, or None when every variable's fit in an int64."""
    situations = 1
    for i, k in enumerate(n_levels):
        if situations > MAX_SITUATIONS:
            return i
        situations *= int(k)
    return None


class SituationTrie:
    """The paths that number the situations of the deep variables of a tree.

    Parameters
    ----------
    first : int
        The first deep variable (at least 2: its parent, ``first - 1``, is
        not the root's variable).
    anchor : ndarray of int64
        Sorted mixed-radix indices of the trie's situations of variable
        ``first - 1``: their places are their numbers in the trie.
    children : list of ndarray of int64
        ``children[j]``, for variable ``i = first - 1 + j``: a row per trie
        situation of ``i`` and one last row for the situations outside the
        trie, a column per level of ``i``; the number at ``i + 1`` of the
        child (``n_nodes(i + 1)`` where the child is outside the trie).
    """

    __slots__ = ("first", "anchor", "children")

    def __init__(self, first, anchor, children):
        self.first = int(first)
        self.anchor = np.ascontiguousarray(anchor, dtype=np.int64)
        self.children = [np.ascontiguousarray(c, dtype=np.int64) for c in children]

    @classmethod
    def empty(cls, n_levels, first):
        """The trie of no path: every situation of a deep variable is outside it."""
        return cls(first, np.zeros(0, dtype=np.int64),
                   [np.zeros((1, int(k)), dtype=np.int64) for k in n_levels[first - 1:-1]])

    def n_nodes(self, i):
        """Situations of variable ``i`` (``first - 1`` or later) in the trie,
        which is also the number shared by the deep ones outside it."""
        if i == self.first - 1:
            return len(self.anchor)
        return int(self.children[i - self.first][-1, 0])

    def anchor_places(self, situations):
        """Places in the trie of mixed-radix situations of variable
        ``first - 1`` (``len(anchor)`` for those outside)."""
        situations = np.asarray(situations, dtype=np.int64)
        place = np.searchsorted(self.anchor, situations)
        inside = place < len(self.anchor)
        inside[inside] = self.anchor[place[inside]] == situations[inside]
        return np.where(inside, place, len(self.anchor))

    def numbers(self, codes, upto, shallow_index):
        """Numbers at variable ``upto`` (deep) of the paths ``codes`` (rows of
        level codes of the variables before it), given their mixed-radix
        indices at variable ``first - 1``."""
        node = self.anchor_places(shallow_index)
        for i in range(self.first - 1, upto):
            node = self.children[i - self.first + 1][node, codes[:, i]]
        return node

    def same_paths(self, other):
        """Whether ``other`` numbers every deep situation as this trie does
        (the paths of the same data, e.g. a refit on the model's own rows)."""
        return (self.first == other.first and np.array_equal(self.anchor, other.anchor)
                and len(self.children) == len(other.children)
                and all(np.array_equal(ours, theirs)
                        for ours, theirs in zip(self.children, other.children)))

    def translation(self, other):
        """Per deep variable, this trie's number of each of ``other``'s
        numbers (its outside one last): ``other`` numbers the same tree's
        deep situations by other paths."""
        mapped = np.append(self.anchor_places(other.anchor), len(self.anchor))
        out = []
        for ours, theirs in zip(self.children, other.children):
            # their trie situations, in number order, by (parent, level)
            parent, level = np.nonzero(theirs[:-1] != theirs[-1, 0])
            mapped = np.append(ours[mapped[parent], level], ours[-1, 0])
            out.append(mapped)
        return out

    def nbytes(self):
        return self.anchor.nbytes + sum(c.nbytes for c in self.children)


def n_situations_of(n_levels, i):
    """Number of situations of variable ``i`` (a Python int, of any size)."""
    return math.prod(int(k) for k in n_levels[:i])
