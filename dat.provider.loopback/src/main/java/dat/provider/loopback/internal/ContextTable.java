// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;

/**
 * Maps 32-bit {@code lmr_context} / {@code rmr_context} tags to the regions they name.
 *
 * <p>Tags are random and non-zero, drawn from {@link SecureRandom} itself, and redrawn on collision: never
 * counters, and never a seeded statistical generator (a {@code SplittableRandom} was once used: three observed
 * contexts gave its state away in a 2^32 search, and every later context with it). Tags are drawn on the control
 * path only, so the cryptographic generator costs nothing where it matters.
 *
 * <p>Lookups are on the data path and must not allocate (a {@code Map<Integer, ?>} would box) nor lock: the table is
 * open addressing with linear probing over an array of immutable {@link Entry entries}. Writers (region create and
 * free, RMR bind) are serialised by {@code this} and change one slot per call: a register stores a new entry, a
 * remove stores {@link #TOMBSTONE} over it. (Regression, R11: every change copied and rehashed the whole table, so
 * {@code dat_lmr_create} + {@code dat_lmr_free} cost 7.9 us with no other LMR and 264 us with 4,000 live.) Only when
 * the used slots (live entries and tombstones) would pass half the array is it rebuilt, into an array sized for four
 * times the live entries, so the rebuild's work is repaid by the quarter of the array's inserts that come before
 * the next one.
 *
 * <p>Why a reader needs no lock:
 * <ul>
 * <li>A slot holds one reference to an immutable entry, stored and loaded volatile: a reader sees the key and
 *     the region of one registration together, never the key of one and the region of the next that reuses the
 *     slot (parallel key and value arrays would tear exactly so).</li>
 * <li>A tombstone keeps the probe chains through its slot intact, so a remove never hides another key; a reader
 *     that reaches the removed entry's slot after the remove sees the tombstone and misses. Every slot access is
 *     volatile, so they are totally ordered: once {@link #remove} returned, no lookup resolves the tag again.</li>
 * <li>A rebuild publishes the new array (volatile) and then overwrites every slot of the old one with
 *     {@link #MOVED}, still under the lock, so before any later change. A reader still probing the old array sees
 *     either the entry it would also find in the new one or {@code MOVED}, and starts over on the new array; it
 *     can never find in the old array an entry that a later remove took out of the new one.</li>
 * <li>Every array keeps at least half its slots empty until it is retired, and a retired one ends all
 *     {@code MOVED}, so every probe ends.</li>
 * </ul>
 */
final class ContextTable {

    /** One registration; immutable, so publishing the reference publishes both fields. */
    private record Entry(int key, Object value) {
    }

    /** A removed entry: probes go on past it. Its key 0 matches no tag. */
    private static final Entry TOMBSTONE = new Entry(0, null);
    /** A slot of a retired array: the reader starts over on {@link #slots}. */
    private static final Entry MOVED = new Entry(0, null);
    private static final int MIN_CAPACITY = 16;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Entry[].class);

    /** The current array; a power of two long. */
    private volatile Entry[] slots = new Entry[MIN_CAPACITY];
    private final SecureRandom random;
    /** Live entries; guarded by {@code this}. */
    private int live;
    /** Live entries and tombstones of {@link #slots}; guarded by {@code this}. */
    private int used;
    /** Slots written by every change so far, rebuilds included; guarded by {@code this}. For the work-bound test. */
    private long slotWrites;

    ContextTable() {
        this(new SecureRandom());
    }

    /**
     * A table drawing its tags from {@code random}: tests script the tags to place entries in chosen slots.
     *
     * @param random the tag generator
     */
    ContextTable(SecureRandom random) {
        this.random = random;
    }

    /**
     * {@return the region registered under {@code context}, or {@code null}}
     *
     * @param context a tag
     */
    Object get(int context) {
        if (context == 0) {
            return null;
        }
        Entry[] t = slots;
        int i = mix(context) & (t.length - 1);
        Entry e;
        while ((e = (Entry) SLOT.getVolatile(t, i)) != null) {
            if (e.key == context) {
                return e.value;
            }
            if (e == MOVED) {
                t = slots;
                i = mix(context) & (t.length - 1);
            } else {
                i = (i + 1) & (t.length - 1);
            }
        }
        return null;
    }

    /**
     * Registers {@code value} under a fresh random tag.
     *
     * @param value the region
     * @return its tag, never 0
     */
    synchronized int register(Object value) {
        if ((used + 1) * 2 > slots.length) {
            rebuild();
        }
        Entry[] t = slots;
        int context;
        int free;
        do {
            context = random.nextInt();
            free = context == 0 ? -1 : freeSlotFor(t, context);
        } while (free < 0);
        if (SLOT.getVolatile(t, free) == null) {
            used++;
        }
        SLOT.setVolatile(t, free, new Entry(context, value));
        slotWrites++;
        live++;
        return context;
    }

    /** @param context a tag to forget; unknown tags are ignored */
    synchronized void remove(int context) {
        if (context == 0) {
            return;
        }
        Entry[] t = slots;
        int i = mix(context) & (t.length - 1);
        Entry e;
        while ((e = (Entry) SLOT.getVolatile(t, i)) != null) {
            if (e.key == context) {
                SLOT.setVolatile(t, i, TOMBSTONE);
                slotWrites++;
                live--;
                return;
            }
            i = (i + 1) & (t.length - 1);
        }
    }

    /** {@return how many slots the changes so far wrote} */
    synchronized long slotWrites() {
        return slotWrites;
    }

    /**
     * {@return the slot a new entry for {@code key} goes to (the first tombstone or the empty slot its probe ends
     * at), or -1 when {@code key} is taken}
     */
    private static int freeSlotFor(Entry[] t, int key) {
        int i = mix(key) & (t.length - 1);
        int tombstone = -1;
        Entry e;
        while ((e = (Entry) SLOT.getVolatile(t, i)) != null) {
            if (e.key == key) {
                return -1;
            }
            if (e == TOMBSTONE && tombstone < 0) {
                tombstone = i;
            }
            i = (i + 1) & (t.length - 1);
        }
        return tombstone >= 0 ? tombstone : i;
    }

    /** Copies the live entries into an array of four times their number, publishes it and retires the old one. */
    private void rebuild() {
        Entry[] old = slots;
        int capacity = MIN_CAPACITY;
        while (capacity < (live + 1) * 4) {
            capacity *= 2;
        }
        Entry[] next = new Entry[capacity];
        for (Entry e : old) {
            if (e != null && e != TOMBSTONE) {
                int i = mix(e.key) & (capacity - 1);
                while (next[i] != null) {
                    i = (i + 1) & (capacity - 1);
                }
                next[i] = e;
                slotWrites++;
            }
        }
        // The volatile store publishes next's plain-written slots to every reader that loads it.
        slots = next;
        used = live;
        for (int i = 0; i < old.length; i++) {
            SLOT.setVolatile(old, i, MOVED);
        }
        slotWrites += old.length;
    }

    /**
     * {@return the slot {@code key} probes first in an array of {@code capacity} slots}
     *
     * @param key a tag
     * @param capacity a power of two
     */
    static int home(int key, int capacity) {
        return mix(key) & (capacity - 1);
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
