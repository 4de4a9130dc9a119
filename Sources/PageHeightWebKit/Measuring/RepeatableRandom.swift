/// `Math.random` made repeatable, for offline pages: injected at document start into every frame,
/// it replaces the engine's generator with a fixed-seed one, so each document load draws the
/// same sequence.
///
/// Saved pages pick content at random: `aeb/08f79376…` inserts one of several ad-block bait
/// elements, chosen with `Math.random()`, and measured 10753, 10757, 10761 or 10765 px by which
/// one it drew, under the schedule as in default mode. Offline mode is for answers that repeat;
/// with this, such a page measures the same every run. Online pages keep the engine's own
/// generator. `crypto.getRandomValues` stays real (pages use it for identifiers, not layout).
enum RepeatableRandom {
    /// xorshift32 from a fixed seed, scaled to [0, 1); installed as a non-enumerable own
    /// property, as the engine's is, and still writable so a page may replace it.
    static let source = #"""
(function(){
let state = 0x2545F491;
const random = function random() {
  state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
  return (state >>> 0) / 4294967296;
};
Object.defineProperty(Math, "random", {value: random, writable: true, configurable: true, enumerable: false});
})();
"""#
}
