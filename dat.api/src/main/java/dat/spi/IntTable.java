// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import java.util.function.Consumer;

/**
 * An int-keyed map read on the data path without a lock or an allocation: an {@code lmr_context} to its LMR, a
 * {@code qp_num} to its EP. A {@code Map<Integer, ?>} boxes every lookup of a key past the small-integer cache (the
 * ofi provider's LMR lookup allocated so on every post until it used this table).
 *
 * <p>Open addressing over an {@code int[]}; key 0 marks an empty cell, so 0 is never stored (no lkey or QP
 * number the provider uses is 0; {@link #put} refuses it). Writers are rare (a registration, an EP create or
 * free), serialised by the caller, and copy the table before publishing it through a volatile field: a reader
 * always sees one complete, immutable table.
 *
 * @param <T> the value type
 */
public final class IntTable<T> {

    private record Table(int[] keys, Object[] values, int mask, int size) {
    }

    /** An empty table. */
    public IntTable() {
    }

    /** Volatile publication: a reader sees the arrays fully written before the reference. */
    private volatile Table table = new Table(new int[16], new Object[16], 15, 0);

    /**
     * {@return the value stored under {@code key}, or {@code null}}
     *
     * @param key a key
     */
    @SuppressWarnings("unchecked")
    public T get(int key) {
        if (key == 0) {
            return null;
        }
        Table t = table;
        int[] keys = t.keys;
        int i = mix(key) & t.mask;
        int k;
        while ((k = keys[i]) != 0) {
            if (k == key) {
                return (T) t.values[i];
            }
            i = (i + 1) & t.mask;
        }
        return null;
    }

    /**
     * Stores a value; the caller serialises writers.
     *
     * @param key a non-zero key
     * @param value the value
     */
    public void put(int key, T value) {
        if (key == 0) {
            throw new IllegalArgumentException("key 0 marks an empty cell");
        }
        Table t = table;
        int capacity = t.keys.length;
        while ((t.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        table = rebuild(t, capacity, key, value, 0);
    }

    /**
     * Removes a key; the caller serialises writers.
     *
     * @param key the key
     */
    public void remove(int key) {
        Table t = table;
        table = rebuild(t, t.keys.length, 0, null, key);
    }

    /**
     * Hands every value to {@code action}, from the table as it was when the call began: writers, the action's own
     * included, change only later calls.
     *
     * @param action what to do with each value
     */
    @SuppressWarnings("unchecked")
    public void forEach(Consumer<? super T> action) {
        Table t = table;
        for (int i = 0; i < t.keys.length; i++) {
            if (t.keys[i] != 0) {
                action.accept((T) t.values[i]);
            }
        }
    }

    private static Table rebuild(Table from, int capacity, int addKey, Object addValue, int dropKey) {
        int[] keys = new int[capacity];
        Object[] values = new Object[capacity];
        int mask = capacity - 1;
        int size = 0;
        for (int i = 0; i < from.keys.length; i++) {
            int k = from.keys[i];
            if (k != 0 && k != dropKey && k != addKey) {
                size += insert(keys, values, mask, k, from.values[i]);
            }
        }
        if (addKey != 0) {
            size += insert(keys, values, mask, addKey, addValue);
        }
        return new Table(keys, values, mask, size);
    }

    private static int insert(int[] keys, Object[] values, int mask, int key, Object value) {
        int i = mix(key) & mask;
        while (keys[i] != 0) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
        return 1;
    }

    /** Spreads keys that differ in high bits only (QP numbers and keys are often sequential). */
    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
