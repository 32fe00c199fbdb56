// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct pollfd} (poll.h): one descriptor {@link LibC#poll} watches. It lives in arrays, so its accessors take
 * the array and an entry's index.
 *
 * <p>Offsets as on Linux (every architecture); {@code VerbsLayoutOffsetTest} checks every field against the C
 * compiler.
 *
 * <pre>
 * offset size  C type  field
 *      0    4  int     fd
 *      4    2  short   events
 *      6    2  short   revents
 * sizeof 8, alignof 4</pre>
 */
public final class Pollfd {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"),
            JAVA_SHORT.withName("events"),
            JAVA_SHORT.withName("revents")).withName("struct pollfd");

    /** {@code sizeof(struct pollfd)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code fd}. */
    public static final long FD = NativeTypes.offset(LAYOUT, "fd");

    /** Offset of {@code events}. */
    public static final long EVENTS = NativeTypes.offset(LAYOUT, "events");

    /** Offset of {@code revents}. */
    public static final long REVENTS = NativeTypes.offset(LAYOUT, "revents");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt FD$LAYOUT = NativeTypes.member(LAYOUT, "fd", ValueLayout.OfInt.class);
    static final ValueLayout.OfShort EVENTS$LAYOUT = NativeTypes.member(LAYOUT, "events", ValueLayout.OfShort.class);
    static final ValueLayout.OfShort REVENTS$LAYOUT = NativeTypes.member(LAYOUT, "revents", ValueLayout.OfShort.class);

    /**
     * Sets {@code fd} ({@code int}).
     *
     * @param array {@code struct pollfd} entries
     * @param index the entry
     * @param value the new value
     */
    public static void fd(MemorySegment array, long index, int value) {
        array.set(FD$LAYOUT, index * SIZE + FD, value);
    }

    /**
     * Sets {@code events} ({@code short}).
     *
     * @param array {@code struct pollfd} entries
     * @param index the entry
     * @param value the new value
     */
    public static void events(MemorySegment array, long index, short value) {
        array.set(EVENTS$LAYOUT, index * SIZE + EVENTS, value);
    }

    /**
     * {@return {@code revents} ({@code short})}
     *
     * @param array {@code struct pollfd} entries
     * @param index the entry
     */
    public static short revents(MemorySegment array, long index) {
        return array.get(REVENTS$LAYOUT, index * SIZE + REVENTS);
    }

    private Pollfd() {
    }
}
