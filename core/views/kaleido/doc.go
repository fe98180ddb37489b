// Package kaleido lays out a dynamic call or spawn tree radially, as the
// kaleidoscope visualization of Tick and Park 1991 (Tick and Park, VISTA) does: the
// root at the centre, each level on a circle, each node inside a sector of
// its parent's sector sized by its weight, and the whole tree condensed to
// fit a window.
//
// # Trees
//
// A Tree is an ordered rooted tree of invocations, each with a procedure, a
// processing element (PE) and a start time. It comes from a table of rows
// (id, parent) with FromIntTable or FromStringTable, or from the nested
// states of a trace with FromTrace: a state at depth d+1 is a callee of the
// state at depth d of the same container and state type that was open when
// it began. The trees of all containers hang under one synthetic root,
// "program", whose children are the outermost states grouped by container
// (in container order), then by state type, then in time order; so every
// container owns one contiguous angular range. A spawn tree comes from
// the links of a trace with FromSpawnLinks: a link from container A to
// container B says that A created B (a goroutine, a process), and each
// container is a node. Nodes are numbered in depth-first preorder, so a
// subtree is a contiguous range of nodes.
//
// # Layout
//
// Level is the depth below the root (0 for the root) and the height of a
// tree the longest root-to-leaf path plus one. In a window of width w with
// d pixels between levels, at most hmax = floor(w / 2d) levels fit. A tree
// of height h > hmax is level-condensed: with c0 = floor(h / hmax) and the
// threshold t = c0 hmax - c0 (h - c0 hmax), levels l <= t are condensed by
// c = c0 and deeper levels by c = c0 + 1; a node is kept when l mod c == 0,
// otherwise its children hang from its nearest kept ancestor. A node's
// displayed level is its depth in the condensed tree. Subtree views are
// never condensed.
//
// On the displayed tree of height H, a node's weight is its height H - l
// plus the weights of its children. The root's sector is (0, 360) degrees;
// a child receives w(child) / (sum of its siblings' weights) of its parent's
// extent, starting where the previous sibling's sector ends (the first at
// the parent's start). A node sits at radius d l and angle s + a/2, angles
// counterclockwise from the positive x axis, y pointing up.
//
// Node condensing: a node whose sector spans less than one pixel along its
// own circle (a * pi/180 * d * l < 1) is drawn, but its descendants are
// not. The root, on a circle of radius 0, is never condensed.
//
// Each family (a drawn node and its children) is drawn as a polygon from
// the parent through its children in angular order (a line for one child).
// Polygon splits the polygon among children so that each child can carry
// its own colour.
package kaleido
