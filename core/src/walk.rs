//! A walk back over a run's steps that remembers where it stopped. The
//! figure shows the last `stop_reason` at every step, and the step that
//! last had one may lie a whole tool loop back: at the end of a run of
//! 850,000 steps, each step back walked the run again (50 ms, more on a
//! busy machine). With the walk remembered, a step from a nearby one only
//! looks at the steps between them.

use std::cell::Cell;

/// The last answer: no step after `found` up to `asked` is a mark, and
/// `found` is (with `None`: no step up to `asked` is one), of steps `len`
/// long when it was asked; `before`, when known, is the mark before
/// `found` (no mark lies between them), so that a step back across
/// `found` is answered too.
#[derive(Clone, Copy, Debug)]
struct Walked {
    asked: usize,
    found: Option<usize>,
    before: Option<Option<usize>>,
    len: usize,
}

/// What one walk back last found. One memo serves one question (one kind
/// of mark) over one run's steps, which do not change once recorded; a
/// different length of steps forgets it.
#[derive(Debug, Default)]
pub struct Memo(Cell<Option<Walked>>);

thread_local! {
    static LOOKED_AT: Cell<usize> = const { Cell::new(0) };
}

/// How many steps the walks on this thread have looked at (a test counts
/// the work of a move with it).
pub fn looked_at() -> usize {
    LOOKED_AT.with(Cell::get)
}

impl Memo {
    /// The latest step at or before `position` (of `len` steps) that
    /// `is_mark` holds for; from the last answer, only the steps between
    /// it and `position` are looked at.
    pub fn latest(
        &self,
        len: usize,
        position: usize,
        mut is_mark: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let position = position.min(len.checked_sub(1)?);
        let known = self.0.get().filter(|w| w.len == len);
        let walked = match known {
            // Later: only the steps after the last question are new.
            Some(w) if position >= w.asked => {
                let [found, before] = two_marks(w.asked + 1, position, &mut is_mark);
                match found {
                    Some(_) => Walked { found, before: Some(before.or(w.found)), ..w },
                    None => w,
                }
            }
            // Earlier, but not before what was found: the answer stands.
            Some(w) if w.found.is_none_or(|f| f <= position) => w,
            // Back across what was found, to the mark before it.
            Some(Walked { before: Some(before), .. }) if before.is_none_or(|b| b <= position) => {
                Walked { asked: position, found: before, before: None, len }
            }
            _ => {
                let [found, before] = two_marks(0, position, &mut is_mark);
                Walked { asked: position, found, before: Some(before), len }
            }
        };
        self.0.set(Some(Walked { asked: position, len, ..walked }));
        walked.found
    }
}

/// The latest two marks in `from..=to`, the later first, looked for from
/// `to` down.
fn two_marks(from: usize, to: usize, is_mark: &mut impl FnMut(usize) -> bool) -> [Option<usize>; 2] {
    let mut marks =
        (from..=to).rev().inspect(|_| LOOKED_AT.with(|n| n.set(n.get() + 1))).filter(|&i| is_mark(i));
    [marks.next(), marks.next()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever order it is asked in (steps forward and back, jumps, the
    /// steps growing), the memo answers as a walk from scratch would.
    #[test]
    fn a_remembered_walk_answers_as_a_walk_from_scratch() {
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..50 {
            let len = 1 + next(300);
            let every = 1 + next(60);
            let marks: Vec<bool> = (0..len).map(|_| next(every) == 0).collect();
            let memo = Memo::default();
            let mut at = next(len);
            for _ in 0..200 {
                at = match next(4) {
                    0 => next(len + 5),
                    1 => at.saturating_sub(1 + next(3)),
                    _ => at + next(3),
                };
                let scratch = (0..=at.min(len - 1)).rev().find(|&i| marks[i]);
                assert_eq!(memo.latest(len, at, |i| marks[i]), scratch, "at {at} of {len}");
            }
            let grown = len + 1;
            assert_eq!(memo.latest(grown, len, |_| true), Some(len), "the steps grew: forgotten");
        }
        assert_eq!(Memo::default().latest(0, 3, |_| true), None);
    }
}
