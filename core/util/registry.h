#pragma once
// A registry of declarations that register themselves from their own files (growth
// variants, grow/variant.h; layer policies, importance/policy.h): each has a string `id`,
// and listings show them in a fixed display order, the ids named in `order` first, in that
// order, then any other by id. The registrations run during static initialisation, in any
// order across files, so every addition keeps the order.
//
// No LibTorch, no Qt.

#include <algorithm>
#include <string>
#include <vector>

namespace gb::util {

template <typename T>
class Registry {
 public:
  explicit Registry(std::vector<std::string> order) : m_order(std::move(order)) {}

  bool add(const T* item) {
    m_items.push_back(item);
    std::stable_sort(m_items.begin(), m_items.end(), [this](const T* a, const T* b) {
      const size_t ra = rank(a->id), rb = rank(b->id);
      return ra != rb ? ra < rb : a->id < b->id;  // unlisted ids last, by id
    });
    return true;
  }
  const std::vector<const T*>& all() const { return m_items; }
  const T* find(const std::string& id) const {
    for (const T* item : m_items) {
      if (item->id == id) return item;
    }
    return nullptr;
  }
  // "a, b, c": the ids in display order, for messages naming what is known.
  std::string ids() const {
    std::string s;
    for (const T* item : m_items) s += (s.empty() ? "" : ", ") + item->id;
    return s;
  }

 private:
  size_t rank(const std::string& id) const {
    return static_cast<size_t>(std::find(m_order.begin(), m_order.end(), id) - m_order.begin());
  }

  std::vector<std::string> m_order;
  std::vector<const T*> m_items;
};

}  // namespace gb::util
