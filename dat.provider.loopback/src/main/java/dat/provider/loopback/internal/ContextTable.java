// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import java.security.SecureRandom;

/**
 * Maps 32-bit {@code lmr_context} / {@code rmr_context} tags to the regions they name.
 *
 * <p>Tags are random and non-zero, drawn from {@link SecureRandom} itself, and redrawn on collision: never
 * counters, and never a seeded statistical generator (a {@code SplittableRandom} was once used: three observed
 * contexts gave its state away in a 2^32 search, and every later context with it). Tags are drawn on the control
 * path only, so the cryptographic generator costs nothing where it matters.
 *
 * <p>Lookups are on the data path and must not allocate (a {@code Map<Integer, ?>} would box): the table is
 * open addressing over an {@code int[]}. Writers (region create and free, RMR bind) are rare and copy the table
 * before publishing it through a volatile field, so a reader always sees a complete, immutable table with no
 * lock.
 */
final class ContextTable {

    private static final class Table {
        final int[] keys;
        final Object[] values;
        final int mask;
        final int size;

        Table(int capacity, int size) {
            this.keys = new int[capacity];
            this.values = new Object[capacity];
            this.mask = capacity - 1;
            this.size = size;
        }
    }

    /** Volatile publication: a reader sees the arrays fully written before the reference. */
    private volatile Table table = new Table(16, 0);
    private final SecureRandom random = new SecureRandom();

    /**
     * {@return the region registered under {@code context}, or {@code null}}
     *
     * @param context a tag
     */
    Object get(int context) {
        if (context == 0) {
            return null;
        }
        Table t = table;
        int i = mix(context) & t.mask;
        int key;
        while ((key = t.keys[i]) != 0) {
            if (key == context) {
                return t.values[i];
            }
            i = (i + 1) & t.mask;
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
        int context;
        do {
            context = random.nextInt();
        } while (context == 0 || get(context) != null);
        Table old = table;
        int capacity = old.keys.length;
        while ((old.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        Table next = new Table(capacity, old.size + 1);
        copyInto(old, next, 0);
        insert(next, context, value);
        table = next;
        return context;
    }

    /** @param context a tag to forget; unknown tags are ignored */
    synchronized void remove(int context) {
        Table old = table;
        if (context == 0 || get(context) == null) {
            return;
        }
        Table next = new Table(old.keys.length, old.size - 1);
        copyInto(old, next, context);
        table = next;
    }

    private static void copyInto(Table from, Table to, int except) {
        for (int i = 0; i < from.keys.length; i++) {
            int key = from.keys[i];
            if (key != 0 && key != except) {
                insert(to, key, from.values[i]);
            }
        }
    }

    private static void insert(Table t, int key, Object value) {
        int i = mix(key) & t.mask;
        while (t.keys[i] != 0) {
            i = (i + 1) & t.mask;
        }
        t.keys[i] = key;
        t.values[i] = value;
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
