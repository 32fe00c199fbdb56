// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.UnionLayout;

/**
 * Finds a member of a struct layout by its C designator ({@code fid.context}), so each struct class states its
 * offsets by name and binds each accessor to the member's own layout. Nothing here calls a restricted method: the
 * struct classes load without native access.
 */
public final class FfmLayouts {

    /** {@code os.arch} as the JVM reports it. */
    public static final String ARCH = System.getProperty("os.arch", "");

    /** {@code os.name} as the JVM reports it. */
    public static final String OS = System.getProperty("os.name", "");

    private FfmLayouts() {
    }

    /**
     * {@return why the struct layouts are not known to hold here, or {@code null} on Linux LP64 (x86_64, aarch64)}
     */
    public static String unsupportedPlatformReason() {
        if (!OS.equals("Linux")) {
            return "the ofi provider needs Linux (libfabric.so.1); os.name is " + OS;
        }
        if (!ARCH.equals("amd64") && !ARCH.equals("aarch64")) {
            return "the ofi provider's struct layouts are verified for x86_64 (amd64) and aarch64 only; os.arch is "
                    + ARCH;
        }
        return null;
    }

    /**
     * {@return the byte offset of the member named by a dotted C designator}
     *
     * @param layout a struct layout whose member names are the C names
     * @param designator for example {@code fid.ops}
     */
    public static long offset(GroupLayout layout, String designator) {
        return resolve(layout, designator).offset();
    }

    /**
     * {@return the member's layout, checked to be a {@code kind}}
     *
     * @param <T> the layout kind an accessor expects
     * @param layout a struct layout
     * @param designator the dotted C designator
     * @param kind the layout class
     */
    static <T extends MemoryLayout> T member(GroupLayout layout, String designator, Class<T> kind) {
        MemoryLayout found = resolve(layout, designator).layout();
        if (!kind.isInstance(found)) {
            throw new IllegalArgumentException(designator + " of " + layout.name().orElse("layout") + " is " + found
                    + ", not a " + kind.getSimpleName());
        }
        return kind.cast(found);
    }

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
                throw new IllegalArgumentException(designator + ": no member " + name + " in "
                        + layout.name().orElse("layout"));
            }
            at = new Found(at.offset() + inner.offset(), inner.layout());
        }
        return at;
    }

    private static Found find(GroupLayout group, String name) {
        boolean union = group instanceof UnionLayout;
        long at = 0;
        for (MemoryLayout m : group.memberLayouts()) {
            if (m.name().filter(name::equals).isPresent()) {
                return new Found(at, m);
            }
            if (!union) {
                at += m.byteSize();
            }
        }
        return null;
    }
}
