// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** C types of the x86_64/aarch64 LP64 ABI and a struct builder that pads members the way the C compiler does. */
public final class CStruct {

    /** {@code int}, {@code DAT_COUNT}, {@code DAT_UINT32}, {@code DAT_BOOLEAN} and every DAT enum. */
    public static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    /** {@code DAT_UINT64}, {@code DAT_VADDR}, {@code DAT_VLEN}, {@code DAT_CONN_QUAL}. */
    public static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    /** Any pointer or handle. */
    public static final AddressLayout C_POINTER = ValueLayout.ADDRESS;

    private CStruct() {
    }

    /**
     * {@return a struct of the named members in order, each at the next offset its alignment allows, the whole
     * padded to the largest alignment} as the System V ABI lays out a C struct.
     *
     * @param members the members, each with its C name
     */
    public static StructLayout of(MemoryLayout... members) {
        List<MemoryLayout> out = new ArrayList<>();
        long offset = 0;
        long maxAlign = 1;
        for (MemoryLayout m : members) {
            long align = m.byteAlignment();
            maxAlign = Math.max(maxAlign, align);
            long pad = (align - offset % align) % align;
            if (pad > 0) {
                out.add(MemoryLayout.paddingLayout(pad));
                offset += pad;
            }
            out.add(m);
            offset += m.byteSize();
        }
        long tail = (maxAlign - offset % maxAlign) % maxAlign;
        if (tail > 0) {
            out.add(MemoryLayout.paddingLayout(tail));
        }
        return MemoryLayout.structLayout(out.toArray(MemoryLayout[]::new));
    }

    /**
     * {@return a {@code char name[length]} member}
     *
     * @param name C name
     * @param length element count
     */
    public static MemoryLayout chars(String name, long length) {
        return MemoryLayout.sequenceLayout(length, ValueLayout.JAVA_BYTE).withName(name);
    }

    /**
     * {@return the byte offset of a member}
     *
     * @param layout the struct
     * @param name the member's C name
     */
    public static long offset(StructLayout layout, String name) {
        return layout.byteOffset(MemoryLayout.PathElement.groupElement(name));
    }

    /**
     * {@return the NUL-terminated text of a {@code char[]} member, at most its length, decoded as UTF-8 with
     * malformed bytes replaced} C providers fill these; nothing guarantees the terminator is there.
     *
     * @param struct the struct's memory
     * @param offset the member's offset
     * @param length the member's length
     */
    public static String string(MemorySegment struct, long offset, long length) {
        MemorySegment field = struct.asSlice(offset, length);
        long n = 0;
        while (n < length && field.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(field.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /** Longest C string read through a pointer; a provider's string longer than this is cut. */
    public static final long MAX_C_STRING = 4096;

    /**
     * {@return the NUL-terminated text a C pointer points to, or {@code null} for NULL, cut at
     * {@value #MAX_C_STRING} bytes}
     *
     * @param p the pointer, of any size
     */
    @SuppressWarnings("restricted") // a C string the C provider returned; read up to its terminator only
    public static String string(MemorySegment p) {
        if (p.address() == 0) {
            return null;
        }
        MemorySegment s = p.reinterpret(MAX_C_STRING);
        long n = 0;
        while (n < MAX_C_STRING && s.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(s.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
