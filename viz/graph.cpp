#include "viz/graph.h"

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

const GraphNode* Graph::findNode(const std::string& id) const { return findById(nodes, id); }
const GraphEdge* Graph::findEdge(const std::string& id) const { return findById(edges, id); }
const GraphCluster* Graph::findCluster(const std::string& id) const {
  return findById(clusters, id);
}

}  // namespace fuserlab::viz
