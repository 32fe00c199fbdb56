// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.UnionLayout;

/**
 * The C types the struct classes share, and the platform they are valid on.
 *
 * <p>Every struct class is written for the LP64 Linux ABI (8-byte pointers, {@code long} and {@code size_t}).
 * Only the glibc pthread types differ between the two architectures rdma-core ships for in Debian, x86_64 and
 * aarch64; they sit after every field jDAT reads, but their size moves the fields behind them and the struct
 * sizes, so they are chosen here per architecture. Nothing here calls a restricted method: the struct classes
 * load without native access.
 */
public final class NativeTypes {

    /** {@code os.arch} as the JVM reports it. */
    public static final String ARCH = System.getProperty("os.arch", "");

    /** {@code os.name} as the JVM reports it. */
    public static final String OS = System.getProperty("os.name", "");

    private static final boolean AARCH64 = ARCH.equals("aarch64");

    /** {@code pthread_mutex_t} of glibc: 40 bytes on x86_64, 48 on aarch64, 8-byte aligned; opaque to jDAT. */
    public static final MemoryLayout PTHREAD_MUTEX_T = MemoryLayout.sequenceLayout(AARCH64 ? 6 : 5, JAVA_LONG);

    /** {@code pthread_cond_t} of glibc: 48 bytes, 8-byte aligned; opaque to jDAT. */
    public static final MemoryLayout PTHREAD_COND_T = MemoryLayout.sequenceLayout(6, JAVA_LONG);

    private NativeTypes() {
    }

    /**
     * {@return why the struct layouts are not known to hold on this platform, or {@code null} when they are (Linux on
     * x86_64 or aarch64)}
     */
    public static String unsupportedPlatformReason() {
        if (!OS.equals("Linux")) {
            return "the verbs provider needs Linux (libibverbs); os.name is " + OS;
        }
        if (!ARCH.equals("amd64") && !AARCH64) {
            return "the verbs provider's struct layouts are verified for x86_64 (amd64) and aarch64 only; os.arch is "
                    + ARCH;
        }
        return null;
    }

    /**
     * The byte offset of a field given by its C member designator, for example {@code wr.rdma.rkey}. Members of
     * anonymous unions are found without a path element, as in C.
     *
     * @param layout a struct or union layout whose member names are the C field names
     * @param designator the dotted C member designator
     * @return the offset of the member from the start of {@code layout}
     * @throws IllegalArgumentException if there is no such member
     */
    public static long offset(GroupLayout layout, String designator) {
        return resolve(layout, designator).offset();
    }

    /**
     * The layout of a field given by its C member designator, as {@link #offset} finds it: what a struct class binds
     * an accessor to, so the accessor reads and writes the member's own width.
     *
     * @param <T> the kind of layout the accessor expects
     * @param layout a struct or union layout whose member names are the C field names
     * @param designator the dotted C member designator
     * @param kind the kind of layout the accessor expects, for example {@code ValueLayout.OfInt.class}
     * @return the member's layout
     * @throws IllegalArgumentException if there is no such member, or it is not a {@code kind}
     */
    static <T extends MemoryLayout> T member(GroupLayout layout, String designator, Class<T> kind) {
        MemoryLayout found = resolve(layout, designator).layout();
        if (!kind.isInstance(found)) {
            throw new IllegalArgumentException(designator + " of " + layout.name().orElse("layout") + " is " + found
                    + ", not a " + kind.getSimpleName());
        }
        return kind.cast(found);
    }

    /** A member found by its designator: where it starts and its layout. */
    private record Found(long offset, MemoryLayout layout) {
    }

    private static Found resolve(GroupLayout layout, String designator) {
        Found at = new Found(0, layout);
        for (String name : designator.split("\\.", -1)) {
            if (!(at.layout() instanceof GroupLayout group)) {
                throw new IllegalArgumentException(designator + ": " + at.layout() + " has no members");
            }
            Found inner = find(group, name);
            if (inner == null) {
                throw new IllegalArgumentException(designator + ": no member " + name + " in " + layout.name()
                        .orElse("layout"));
            }
            at = new Found(at.offset() + inner.offset(), inner.layout());
        }
        return at;
    }

    /** {@return the member named {@code name} and its offset in {@code group}, descending into unnamed groups} */
    private static Found find(GroupLayout group, String name) {
        boolean union = group instanceof UnionLayout;
        long at = 0;
        for (MemoryLayout m : group.memberLayouts()) {
            if (m.name().filter(name::equals).isPresent()) {
                return new Found(at, m);
            }
            if (m.name().isEmpty() && m instanceof GroupLayout inner) {
                Found deeper = find(inner, name);
                if (deeper != null) {
                    return new Found(at + deeper.offset(), deeper.layout());
                }
            }
            if (!union) {
                at += m.byteSize();
            }
        }
        return null;
    }
}
