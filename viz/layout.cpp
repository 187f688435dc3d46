#include "viz/layout.h"

namespace fuserlab::viz {
namespace {

template <typename T>
const T* findById(const std::vector<T>& items, const std::string& id) {
  for (const T& item : items) {
    if (item.id == id) return &item;
  }
  return nullptr;
}

}  // namespace

bool Box::contains(const Box& other, double slack) const {
  return other.x >= x - slack && other.y >= y - slack && other.right() <= right() + slack &&
         other.bottom() <= bottom() + slack;
}

bool Box::overlaps(const Box& other) const {
  return x < other.right() && other.x < right() && y < other.bottom() && other.y < bottom();
}

const NodeLayout* Layout::node(const std::string& id) const { return findById(nodes, id); }
const EdgeLayout* Layout::edge(const std::string& id) const { return findById(edges, id); }
const ClusterLayout* Layout::cluster(const std::string& id) const { return findById(clusters, id); }

}  // namespace fuserlab::viz
