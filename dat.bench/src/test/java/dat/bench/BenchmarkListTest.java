// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;

/**
 * Guards against a build that silently produces no benchmarks. JMH's annotation processor writes
 * {@code META-INF/BenchmarkList} (and the generated harness classes); since JDK 23 javac runs no processor it only
 * finds on the class path, so a lost {@code annotationProcessorPaths} entry would leave a jar that compiles, packages
 * and lists nothing. This test reads the list next to the compiled benchmark classes and checks that it names every
 * {@code @Benchmark} method those classes declare.
 */
class BenchmarkListTest {

    @Test
    void benchmarkListNamesEveryDeclaredBenchmark() throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = Path.of(PingPongBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.isDirectory(classes), "expected the compiled classes directory, got " + classes);

        Set<String> declared = declaredBenchmarks(classes);
        assertFalse(declared.isEmpty(), "no @Benchmark method found under " + classes);

        Path list = classes.resolve(BenchmarkList.BENCHMARK_LIST.replaceFirst("^/", ""));
        if (!Files.isRegularFile(list)) {
            fail(list + " is missing: the JMH annotation processor did not run. It must be declared in the "
                    + "maven-compiler-plugin's annotationProcessorPaths (jmh-generator-annprocess); JDK 23+ ignores "
                    + "processors found on the class path");
        }
        Set<String> listed = new TreeSet<>();
        try (InputStream in = Files.newInputStream(list)) {
            for (BenchmarkListEntry entry : BenchmarkList.readBenchmarkList(in)) {
                listed.add(entry.getUsername());
            }
        }

        Set<String> missing = new TreeSet<>(declared);
        missing.removeAll(listed);
        assertTrue(missing.isEmpty(), "benchmarks declared but not in " + list + ": " + missing);
        assertTrue(listed.size() >= declared.size(),
                list + " lists " + listed.size() + " benchmarks, the classes declare " + declared.size());
        assertEquals(declared, listed, "the BenchmarkList names exactly the declared benchmarks");
    }

    @Test
    void everyBenchmarkClassHasItsGeneratedHarness() throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = Path.of(PingPongBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        for (String benchmark : declaredBenchmarks(classes)) {
            int dot = benchmark.lastIndexOf('.');
            String owner = benchmark.substring(0, dot);
            String simple = owner.substring(owner.lastIndexOf('.') + 1);
            String generated = "dat/bench/jmh_generated/" + simple + "_" + benchmark.substring(dot + 1)
                    + "_jmhTest.class";
            assertTrue(Files.isRegularFile(classes.resolve(generated)), "no generated harness " + generated);
        }
    }

    /** {@return {@code class.method} of every {@code @Benchmark} method in {@code dat/bench/*.class}} */
    private static Set<String> declaredBenchmarks(Path classes) throws IOException, ClassNotFoundException {
        Set<String> names = new TreeSet<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(classes.resolve("dat/bench"))) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".class")).toList();
        }
        for (Path file : files) {
            String name = file.getFileName().toString();
            Class<?> type = Class.forName("dat.bench." + name.substring(0, name.length() - ".class".length()),
                    false, BenchmarkListTest.class.getClassLoader());
            for (Method m : type.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Benchmark.class)) {
                    names.add(type.getName() + "." + m.getName());
                }
            }
        }
        return names;
    }
}
