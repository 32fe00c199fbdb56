// SPDX-License-Identifier: Apache-2.0
package dat.layoutcheck;

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

/** Finds the struct classes of a bindings package and walks their layouts the way C names their members. */
public final class StructClasses {

    /**
     * A named member: its C member designator, offset and size.
     *
     * @param designator the member's name, nested ones dotted, as C's member designators are
     * @param offset its offset in the outermost struct
     * @param size its size
     */
    public record Member(String designator, long offset, long size) {
    }

    /**
     * A struct class: the class, its C type (the layout's name) and its layout.
     *
     * @param type the struct class
     * @param cType the C type its layout is named after
     * @param layout its {@code LAYOUT}
     */
    public record Struct(Class<?> type, String cType, GroupLayout layout) {
    }

    /**
     * An accessor's layout: the {@code static final} field {@code NAME$LAYOUT} of a struct class, the layout it holds,
     * the offset constant {@code NAME} the accessor reads at, and the member both name ({@code null} when none does).
     *
     * @param field the {@code NAME$LAYOUT} field
     * @param layout the layout it holds
     * @param offset the value of {@code NAME}, {@code null} when there is no such constant
     * @param member the member {@code NAME} names, {@code null} when none does
     */
    public record Accessor(Field field, MemoryLayout layout, Long offset, Member member) {

        /** {@return the field as a reader finds it, for example {@code IbvSendWr.NUM_SGE$LAYOUT}} */
        public String where() {
            return field.getDeclaringClass().getSimpleName() + "." + field.getName();
        }
    }

    /** What every accessor layout's name ends with, as jextract names them. */
    public static final String ACCESSOR_SUFFIX = "$LAYOUT";

    private StructClasses() {
    }

    /**
     * {@return every class of the anchor's package with a {@code public static final GroupLayout LAYOUT}, by name}
     *
     * @param anchor a class of the bindings package, from a directory of classes (a test run's target/classes)
     */
    public static List<Struct> in(Class<?> anchor) {
        Path dir;
        try {
            Path root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            dir = root.resolve(anchor.getPackageName().replace('.', '/'));
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
                Class<?> c = Class.forName(anchor.getPackageName() + "." + name.replace(".class", ""), false,
                        anchor.getClassLoader());
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
    public static List<Member> members(GroupLayout layout) {
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
    public static List<Accessor> accessors(Struct s) {
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
     * {@return the {@code public static final int} and {@code long} constants of {@code c} whose names match
     * {@code names}: the C enumerators and macros a binding restates}
     *
     * @param c a class
     * @param names a regular expression, for example {@code (IBV|RDMA|AF)_[A-Z0-9_]+}
     */
    public static List<Field> cConstants(Class<?> c, String names) {
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
