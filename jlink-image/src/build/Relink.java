// SPDX-License-Identifier: Apache-2.0
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Rewrites a jar's classes of class-file version 49 or older (Java 5: picocli 4.7 is built so) to version 52, with
 * the stack maps that version requires, and copies everything else as it is. The image's bin/dat maps an AOT cache
 * (aot-launcher.sh), and the JVM leaves out of that cache every class it verified with the old type-inferencing
 * verifier ("Old class has been linked"): for `dat --version` that was 172 picocli classes loaded, parsed, verified
 * and linked at every start. Rewritten, they verify with the type-checking verifier and the cache holds them.
 * The code is unchanged instruction for instruction; only the version and the StackMapTable attributes differ.
 *
 * <p>Run at build time with the JDK 25 that builds the image: {@code java Relink.java IN.jar OUT.jar}.
 */
public final class Relink {

    private static final int OLDEST_WITH_STACK_MAPS = ClassFile.JAVA_6_VERSION;
    private static final int TARGET = ClassFile.JAVA_8_VERSION;

    private Relink() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java Relink.java IN.jar OUT.jar");
            System.exit(2);
        }
        Path in = Path.of(args[0]);
        Path out = Path.of(args[1]);
        Files.createDirectories(out.toAbsolutePath().getParent());
        int rewritten = 0;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {in.toUri().toURL()}, null);
             JarFile jar = new JarFile(in.toFile());
             OutputStream file = Files.newOutputStream(out);
             JarOutputStream target = new JarOutputStream(file)) {
            // Stack maps need the common superclass of two types at a merge point: from the JDK, else parsed from
            // the jar's own class files (never loaded).
            ClassFile classFile = ClassFile.of(
                ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
                ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
                    .orElse(ClassHierarchyResolver.ofResourceParsing(loader))));
            for (JarEntry entry : jar.stream().toList()) {
                byte[] bytes;
                try (InputStream s = jar.getInputStream(entry)) {
                    bytes = s.readAllBytes();
                }
                if (entry.getName().endsWith(".class")) {
                    ClassModel model = classFile.parse(bytes);
                    if (model.majorVersion() < OLDEST_WITH_STACK_MAPS) {
                        bytes = classFile.transformClass(model, ClassTransform.transformingMethodBodies(
                            CodeTransform.ACCEPT_ALL).andThen(Relink::newVersion));
                        rewritten++;
                    }
                }
                JarEntry copy = new JarEntry(entry.getName());
                copy.setTime(entry.getTime());
                target.putNextEntry(copy);
                target.write(bytes);
                target.closeEntry();
            }
        }
        if (rewritten == 0) {
            // Nothing old left (a new picocli): the step is no longer needed, and a build that keeps it should say.
            System.err.println("Relink: no class older than version " + OLDEST_WITH_STACK_MAPS + " in " + in);
            System.exit(1);
        }
        System.out.println("Relink: " + rewritten + " classes of " + in.getFileName() + " now version " + TARGET);
    }

    private static void newVersion(java.lang.classfile.ClassBuilder builder, java.lang.classfile.ClassElement e) {
        if (e instanceof ClassFileVersion) {
            builder.withVersion(TARGET, 0);
        } else {
            builder.with(e);
        }
    }
}
