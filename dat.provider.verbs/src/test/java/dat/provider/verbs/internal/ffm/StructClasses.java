// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

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
import java.util.List;
import java.util.stream.Stream;

/** Finds the struct classes of the bindings package and walks their layouts the way C names their members. */
final class StructClasses {

    /** A named member: its C member designator, offset and size. */
    record Member(String designator, long offset, long size) {
    }

    /** A struct class: the class, its C type (the layout's name) and its layout. */
    record Struct(Class<?> type, String cType, GroupLayout layout) {
    }

    private StructClasses() {
    }

    /** {@return every class of the package with a {@code public static final GroupLayout LAYOUT}, by name} */
    static List<Struct> all() {
        Path dir;
        try {
            Path root = Path.of(LibIbverbs.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            dir = root.resolve(LibIbverbs.class.getPackageName().replace('.', '/'));
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
                Class<?> c = Class.forName(LibIbverbs.class.getPackageName() + "." + name.replace(".class", ""), false,
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
     * {@return the {@code public static final int} constants of {@code c} named like C enumerators and macros
     * ({@code IBV_*}, {@code RDMA_*}, {@code AF_*})}
     *
     * @param c a class
     */
    static List<Field> cConstants(Class<?> c) {
        List<Field> out = new ArrayList<>();
        for (Field f : c.getFields()) {
            int mod = f.getModifiers();
            if (Modifier.isStatic(mod) && Modifier.isFinal(mod) && f.getType() == int.class
                    && f.getName().matches("(IBV|RDMA|AF)_[A-Z0-9_]+")) {
                out.add(f);
            }
        }
        return out;
    }
}
