// query_points<P>: one query vector of the proving key (h, l, a, b_g1, b_g2), read-only to the
// prover. Its points are either owned (setup, a checked load: a std::vector) or borrowed from
// memory that something else keeps alive (a trusted load of a mapped parameters file: the file's
// records are the in-memory points, so they are used where they lie, and the mapping lives as
// long as any query_points that views it).
//
// It converts to std::span<const P> (a contiguous range), compares by contents, and copies
// cheaply when borrowed (the copy shares the keeper).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace c2lab::groth16 {

template <class P>
class query_points {
public:
    query_points() = default;
    query_points(std::vector<P> points) : owned_(std::move(points)) {}  // NOLINT: a vector is a query
    // count points at data, valid while keeper lives.
    query_points(std::shared_ptr<const void> keeper, const P* data, std::size_t count)
        : keeper_(std::move(keeper)), view_(data, count) {}

    std::size_t size() const noexcept { return keeper_ ? view_.size() : owned_.size(); }
    bool empty() const noexcept { return size() == 0; }
    const P* data() const noexcept { return keeper_ ? view_.data() : owned_.data(); }
    const P* begin() const noexcept { return data(); }
    const P* end() const noexcept { return data() + size(); }
    const P& operator[](std::size_t i) const noexcept { return data()[i]; }
    const P& front() const noexcept { return data()[0]; }
    const P& back() const noexcept { return data()[size() - 1]; }
    std::span<const P> span() const noexcept { return {data(), size()}; }
    operator std::span<const P>() const noexcept { return span(); }  // NOLINT: used where spans are

    // Whether the points are borrowed (a mapped file's pages) rather than owned.
    bool borrowed() const noexcept { return keeper_ != nullptr; }
    // The owned vector to fill (setup, a checked load); a borrowed view is dropped first.
    std::vector<P>& owned() {
        keeper_.reset();
        view_ = {};
        return owned_;
    }

    friend bool operator==(const query_points& a, const query_points& b) {
        return std::ranges::equal(a.span(), b.span());
    }

private:
    std::vector<P> owned_;
    std::shared_ptr<const void> keeper_;  // set: the points are view_, kept alive by it
    std::span<const P> view_;
};

}  // namespace c2lab::groth16
