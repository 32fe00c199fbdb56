// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.UnionLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/** Finds the struct classes of the bindings package and walks their layouts the way C names their members. */
final class StructClasses {

    /** A named member: its C member designator, offset and size. */
    record Member(String designator, long offset, long size) {
    }

    /** A struct class: the class, its C type (the layout's name) and its layout. */
    record Struct(Class<?> type, String cType, GroupLayout layout) {
    }

    /**
     * An accessor's layout: the {@code static final} field {@code NAME$LAYOUT} of a struct class, the layout it holds,
     * the offset constant {@code NAME} the accessor reads at, and the member both name ({@code null} when none does).
     */
    record Accessor(Field field, MemoryLayout layout, Long offset, Member member) {

        /** {@return the field as a reader finds it, for example {@code IbvSendWr.NUM_SGE$LAYOUT}} */
        String where() {
            return field.getDeclaringClass().getSimpleName() + "." + field.getName();
        }
    }

    /** What every accessor layout's name ends with, as jextract names them. */
    static final String ACCESSOR_SUFFIX = "$LAYOUT";

    private StructClasses() {
    }

    /** {@return every class of the package with a {@code public static final GroupLayout LAYOUT}, by name} */
    static List<Struct> all() {
        Path dir;
        try {
            Path root = Path.of(LibFabric.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            dir = root.resolve(LibFabric.class.getPackageName().replace('.', '/'));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<Struct> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted(Comparator.naturalOrder()).toList()) {
                String name = file.getFileName().toString();
                if (!name.endsWith(".class") || name.contains("$")) {
                    continue;
                }
                Class<?> c = Class.forName(LibFabric.class.getPackageName() + "." + name.replace(".class", ""), false,
                        StructClasses.class.getClassLoader());
                Field f;
                try {
                    f = c.getField("LAYOUT");
                } catch (NoSuchFieldException e) {
                    continue;
                }
                if (Modifier.isStatic(f.getModifiers()) && f.get(null) instanceof GroupLayout layout) {
                    out.add(new Struct(c, layout.name().orElseThrow(), layout));
                }
            }
        } catch (IOException | ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    /**
     * {@return every named member, nested ones with their dotted designator; members of unnamed unions and structs
     * appear without a path element, as C's anonymous members do}
     *
     * @param layout a struct or union layout
     */
    static List<Member> members(GroupLayout layout) {
        List<Member> out = new ArrayList<>();
        walk(layout, "", 0, out);
        return out;
    }

    private static void walk(GroupLayout group, String prefix, long base, List<Member> out) {
        long at = 0;
        for (MemoryLayout m : group.memberLayouts()) {
            long offset = base + (group instanceof UnionLayout ? 0 : at);
            if (!(m instanceof PaddingLayout)) {
                if (m.name().isEmpty()) {
                    if (m instanceof GroupLayout inner) {
                        walk(inner, prefix, offset, out);
                    }
                } else {
                    String designator = prefix + m.name().get();
                    out.add(new Member(designator, offset, m.byteSize()));
                    if (m instanceof GroupLayout inner) {
                        walk(inner, designator + ".", offset, out);
                    }
                }
            }
            at += m.byteSize();
        }
    }

    /**
     * {@return every accessor layout of {@code s}: each {@code static final} field whose name ends in
     * {@value #ACCESSOR_SUFFIX}, whatever its access, so an accessor added later is found too}
     *
     * @param s a struct class
     */
    static List<Accessor> accessors(Struct s) {
        Map<String, Member> byConstantName = new HashMap<>();
        for (Member m : members(s.layout())) {
            byConstantName.putIfAbsent(m.designator().replace('.', '_').toUpperCase(Locale.ROOT), m);
        }
        List<Accessor> out = new ArrayList<>();
        try {
            for (Field f : s.type().getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) || !f.getName().endsWith(ACCESSOR_SUFFIX)) {
                    continue;
                }
                String name = f.getName().substring(0, f.getName().length() - ACCESSOR_SUFFIX.length());
                Long offset = null;
                try {
                    offset = s.type().getField(name).getLong(null);
                } catch (NoSuchFieldException e) {
                    // Reported by the caller: an accessor reads at its member's offset constant.
                }
                f.setAccessible(true);
                out.add(new Accessor(f, (MemoryLayout) f.get(null), offset, byConstantName.get(name)));
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        out.sort(Comparator.comparing(Accessor::where));
        return out;
    }

    /**
     * {@return the {@code public static final int} constants of {@code c} whose names match {@code names}: the C
     * enumerators and macros a binding restates}
     *
     * @param c a class
     * @param names a regular expression, for example {@code (IBV|RDMA|AF)_[A-Z0-9_]+}
     */
    static List<Field> cConstants(Class<?> c, String names) {
        List<Field> out = new ArrayList<>();
        for (Field f : c.getFields()) {
            int mod = f.getModifiers();
            boolean integral = f.getType() == int.class || f.getType() == long.class;
            if (Modifier.isStatic(mod) && Modifier.isFinal(mod) && integral
                    && f.getName().matches(names)) {
                out.add(f);
            }
        }
        return out;
    }
}
