// The data GraphView keeps on its scene items (QGraphicsItem::setData keys),
// shared by graph_view.cpp, which draws them, and graph_view_overlays.cpp,
// which reads them back for the metrics overlay and the value jumps.
#pragma once

namespace fuserlab::gui::graph_items {

inline constexpr int kSegmentKey = 0;  //!< the report's segment id, -1 for none
inline constexpr int kSearchKey = 1;   //!< the text search matches against
inline constexpr int kKindKey = 2;     //!< "cluster", "node", "edgeLabel"
inline constexpr int kValueKey = 3;    //!< a node's value (IR name)
inline constexpr int kMarkedKey = 4;   //!< outlined by setSegmentMarks
inline constexpr int kMetricKey = 5;   //!< the metrics overlay's line on a segment

}  // namespace fuserlab::gui::graph_items
