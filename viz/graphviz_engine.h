// The only code that calls Graphviz (libgvc, libcgraph). libgvc keeps global
// state and is not thread-safe, so each function here takes one
// process-wide lock for its whole run; layout_service.h puts them on one
// worker thread so callers never wait on the lock on their own thread.
#pragma once

#include <string>

#include "viz/layout.h"

namespace fuserlab::viz {

//! Lays out DOT text with the `dot` engine and reads back node boxes, edge
//! splines, edge label boxes and cluster boxes by their `id` attributes (node
//! names where a node has none), in y-down points. Node order follows the
//! DOT text. An InternalError if the text does not parse.
Layout layoutDotText(const std::string& dot);

//! Lays out DOT text with `dot` and renders it with Graphviz's renderer for
//! `format` ("svg", "png", ...). A UserError if this Graphviz has no
//! renderer for it.
std::string renderDotText(const std::string& dot, const std::string& format);

}  // namespace fuserlab::viz
