/* The search of a sorted array that the unwinder's programs use: without a branch, so that
 * the verifier follows one path through it. Plain C over __u32, __u64, __always_inline and
 * barrier_var (which the includer defines), so that a unit test on the host runs it too. */
#ifndef LF_SEARCH_H
#define LF_SEARCH_H

/* 1 when a < b, else 0: the borrow out of a - b. The barriers hide from the compiler what it
 * knows of the operands (a constant, a 32-bit count) and that the result is 0 or 1: it would
 * turn the arithmetic back into a comparison and a branch. */
static __always_inline __u64 lf_below(__u64 a, __u64 b)
{
	barrier_var(a);
	barrier_var(b);
	__u64 below = ((~a & b) | (~(a ^ b) & (a - b))) >> 63;
	barrier_var(below);
	return below;
}

/* Index of the last of arr's first n entries (sorted by field; size of them in all, a power
 * of two) whose field is <= key, or 0 when there is none: the caller checks the entry. It
 * has no branch, so the verifier follows one path through it rather than one for each
 * outcome of each round, whose number doubles with every round. Its bits are added, not
 * ORed: older verifiers (6.1's) keep no bounds for an OR of two values they do not know. */
#define LF_SEARCH(arr, size, n, field, key)                                                   \
	({                                                                                    \
		__u32 at_ = 0;                                                                \
		_Pragma("clang loop unroll(full)") for (int k_ = __builtin_ctz(size) - 1; k_ >= 0; k_--) \
		{                                                                             \
			__u32 i_ = at_ | 1u << k_;                                            \
			__u64 go_ = (1 - lf_below(key, (arr)[i_].field)) & lf_below(i_, n);   \
			barrier_var(go_);                                                     \
			at_ += (__u32)go_ << k_;                                              \
		}                                                                             \
		at_ & ((size) - 1);                                                           \
	})

/* Index of the entry of arr's first n (sorted, not overlapping) whose [lo, hi) holds key,
 * or -1. */
#define LF_FIND(arr, size, n, lo, hi, key)                                                    \
	({                                                                                    \
		__u32 f_ = LF_SEARCH(arr, size, n, lo, key);                                  \
		f_ < (n) && (key) >= (arr)[f_].lo && (key) < (arr)[f_].hi ? (int)f_ : -1;     \
	})

/* One round of the search of a sorted array the caller reads itself (a map's entries, one
 * lookup each): [*base, *base + *len) holds the last entry <= key, if any entry is; at_mid is
 * the key of the entry at *base + *len / 2. The upper half is kept when at_mid <= key, else
 * the lower one with the middle entry, computed rather than branched on, so that every
 * round ends in one state for the verifier. Rounds go on while *len > 1; then the entry at
 * *base is the one, when its key is <= key. */
static __always_inline void lf_halve(__u32 *base, __u32 *len, __u64 key, __u64 at_mid)
{
	__u32 half = *len / 2;
	*base += half * (__u32)(1 - lf_below(key, at_mid));
	*len -= half;
}

#endif
