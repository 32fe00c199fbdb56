// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import dat.api.DatLmr;
import dat.tck.campaign.Model.Range;
import dat.tck.campaign.Violation.Invariant;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The shadow-memory invariant: a copy of every byte of registered memory, what of it the model lent to posts, and the
 * check after every step that nothing else changed, also after a region's LMR was freed. It also hands out the free
 * ranges posts use and the bytes the application writes into them, from the episode's own generator.
 */
final class ShadowMemory {

    static final int REGIONS = 4;
    static final int REGION_SIZE = 64 * 1024;

    final List<Mem> regions = new ArrayList<>();
    /** The application's choices the steps do not draw: offsets, piece sizes, payload bytes. */
    final SplittableRandom bytes;

    ShadowMemory(SplittableRandom bytes) {
        this.bytes = bytes;
    }

    /**
     * A range lent to a post.
     *
     * @param offset where it starts in its region
     * @param length how long it is (at least 1)
     * @param writable whether the provider may write it
     */
    record Lent(long offset, long length, boolean writable) {
    }

    /** Registered memory and the model's copy of it. */
    static final class Mem {
        final int id;
        final MemorySegment memory;
        final byte[] shadow;
        final int privileges;
        DatLmr lmr;
        /** The application stopped taking buffers from it, to free it once no post holds any. */
        boolean retiring;
        /** Ranges lent to posts. */
        final List<Lent> lent = new ArrayList<>();

        Mem(int id, MemorySegment memory, DatLmr lmr, int privileges) {
            this.id = id;
            this.memory = memory;
            this.lmr = lmr;
            this.privileges = privileges;
            this.shadow = memory.toArray(ValueLayout.JAVA_BYTE);
        }

        boolean overlaps(long offset, long length) {
            for (Lent l : lent) {
                if (offset < l.offset() + l.length() && l.offset() < offset + length) {
                    return true;
                }
            }
            return false;
        }

        void check(String when) {
            lent.sort(Comparator.comparingLong(Lent::offset));
            long from = 0;
            for (Lent l : lent) {
                if (l.writable()) {
                    compare(from, l.offset(), when);
                    from = Math.max(from, l.offset() + l.length());
                }
            }
            compare(from, REGION_SIZE, when);
        }

        private void compare(long from, long to, String when) {
            if (to <= from) {
                return;
            }
            long at = memory.asSlice(from, to - from)
                    .mismatch(MemorySegment.ofArray(shadow).asSlice(from, to - from));
            if (at >= 0) {
                long i = from + at;
                throw new Violation(Invariant.MEMORY, "region " + id + (lmr == null ? " (freed)" : "") + " byte "
                        + i + " changed to "
                        + memory.get(ValueLayout.JAVA_BYTE, i) + " (was " + shadow[(int) i] + ") " + when
                        + ": the provider wrote memory no post held");
            }
        }
    }


    Mem liveRegion(int pick) {
        for (int i = 0; i < REGIONS; i++) {
            Mem m = regions.get(Math.floorMod(pick + i, REGIONS));
            if (m.lmr != null) {
                return m;
            }
        }
        return null;
    }

    /** {@code n} free ranges of live regions adding up to {@code length} bytes, or null. */
    Range[] ranges(int n, long length) {
        Range[] out = new Range[n];
        long left = length;
        for (int i = 0; i < n; i++) {
            // Every piece at least 1 byte: left >= n - i holds throughout.
            long piece = i == n - 1 ? left : 1 + bytes.nextLong(left - (n - 1 - i));
            Range r = freeRange(piece, -1);
            if (r == null) {
                return null;
            }
            out[i] = r;
            left -= piece;
        }
        // Two pieces of one post may not overlap either.
        for (int i = 1; i < n; i++) {
            if (overlaps(out[i], Arrays.copyOf(out, i))) {
                return null;
            }
        }
        return out;
    }

    static boolean overlaps(Range r, Range[] others) {
        for (Range o : others) {
            if (o.mem() == r.mem() && o.offset() < r.offset() + Math.max(1, r.length())
                    && r.offset() < o.offset() + Math.max(1, o.length())) {
                return true;
            }
        }
        return false;
    }

    Range freeRange(long length, int onlyRegion) {
        for (int attempt = 0; attempt < 8; attempt++) {
            Mem m = onlyRegion >= 0 ? regions.get(onlyRegion) : regions.get(bytes.nextInt(REGIONS));
            if (m.lmr == null || m.retiring) {
                continue;
            }
            long offset = bytes.nextLong(REGION_SIZE - Math.max(1, length) + 1);
            if (!m.overlaps(offset, Math.max(1, length))) {
                return new Range(m, offset, length);
            }
        }
        return null;
    }

    Range remoteRange(long length, boolean write, boolean unprivileged, int pick) {
        if (unprivileged) {
            return freeRange(length, 0);
        }
        int region = 1 + Math.floorMod(pick, REGIONS - 1);
        return freeRange(length, write ? region : Math.floorMod(pick, REGIONS));
    }

    static long total(Range[] segs) {
        long t = 0;
        for (Range r : segs) {
            t += r.length();
        }
        return t;
    }

    /** The application writes fresh bytes into the ranges before posting them. */
    byte[] fill(Range[] segs) {
        byte[] data = new byte[(int) total(segs)];
        bytes.nextBytes(data);
        int at = 0;
        for (Range r : segs) {
            MemorySegment.copy(data, at, r.mem().memory, ValueLayout.JAVA_BYTE, r.offset(), (int) r.length());
            System.arraycopy(data, at, r.mem().shadow, (int) r.offset(), (int) r.length());
            at += (int) r.length();
        }
        return data;
    }

    static byte[] snapshot(Range r) {
        return Arrays.copyOfRange(r.mem().shadow, (int) r.offset(), (int) (r.offset() + r.length()));
    }

    static void lend(Range[] segs, boolean writable) {
        for (Range r : segs) {
            r.mem().lent.add(new Lent(r.offset(), Math.max(1, r.length()), writable));
        }
    }

    static void unlend(Range[] segs) {
        for (Range r : segs) {
            for (Iterator<Lent> it = r.mem().lent.iterator(); it.hasNext(); ) {
                Lent l = it.next();
                if (l.offset() == r.offset() && l.length() == Math.max(1, r.length())) {
                    it.remove();
                    break;
                }
            }
        }
    }

    /** The content of these ranges is undefined now (an error or flush): take what is there. */
    static void resync(Range[] segs) {
        for (Range r : segs) {
            MemorySegment.copy(r.mem().memory, ValueLayout.JAVA_BYTE, r.offset(), r.mem().shadow, (int) r.offset(),
                    (int) r.length());
        }
    }

    /** The first {@code length} bytes scattered over {@code segs} must be {@code data}; the rest is undefined. */
    static void expectBytes(Range[] segs, byte[] data, long length, String what) {
        long at = 0;
        for (Range r : segs) {
            long n = Math.min(r.length(), Math.max(0, length - at));
            for (long i = 0; i < n; i++) {
                byte actual = r.mem().memory.get(ValueLayout.JAVA_BYTE, r.offset() + i);
                if (actual != data[(int) (at + i)]) {
                    throw new Violation(Invariant.BYTES, what + ": byte " + (at + i) + " is " + actual + ", expected "
                            + data[(int) (at + i)] + " (region " + r.mem().id + " offset " + (r.offset() + i) + ")");
                }
            }
            at += n;
        }
        resync(segs);
    }

    /** The invariant after every step: no byte changed that the model did not lend to a post that may write it. */
    void check(String when) {
        for (Mem m : regions) {
            m.check(when);
        }
    }
}
