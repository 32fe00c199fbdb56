// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static dat.registry.Fixtures.ia;
import static dat.registry.Fixtures.provider;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.timeout;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.stubbing.Answer;

/**
 * Providers that hang, throw what is not an exception, or answer with names that would forge output: discovery and
 * {@link DatRegistry#open} stay bounded, list each as unavailable with a one-line reason, and keep the others.
 */
class HostileProviderTest {

    /** The limit these tests configure: short, so a hang costs the suite little. */
    private static final String LIMIT_MS = "300";
    /** Far above {@link #LIMIT_MS} times the calls a test makes; a hang fails the test instead of the build. */
    private static final Duration BOUND = Duration.ofSeconds(20);

    /** Released after each test so the threads a hanging provider holds end. */
    private final CountDownLatch release = new CountDownLatch(1);

    private final RecordingLogger log = new RecordingLogger();

    @TempDir
    Path dir;

    @AfterEach
    void releaseHungProviders() {
        release.countDown();
    }

    private <T> Answer<T> hang() {
        return invocation -> {
            // Bounded so the thread ends even if the release never comes; the registry gave up long before.
            release.await(60, TimeUnit.SECONDS);
            throw new IllegalStateException("released");
        };
    }

    private DatRegistry.Builder builder(DatProvider... providers) {
        return DatRegistry.builder().logger(log).providers(List.of(providers))
                .properties(Map.of(DatRegistry.CALL_TIMEOUT_PROPERTY, LIMIT_MS));
    }

    private static ProviderEntry entry(DatRegistry registry, String name) {
        return registry.providers().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError(name + " not in " + registry.providers()));
    }

    private static List<String> iaNames(DatRegistry registry) {
        return registry.ias().stream().map(IaEntry::name).toList();
    }

    @Test
    void aProviderWhoseNameOrInfoNeverReturnsIsListedAsTimedOut() {
        DatProvider stuckName = mock(DatProvider.class);
        when(stuckName.name()).thenAnswer(hang());
        DatProvider stuckInfo = mock(DatProvider.class);
        when(stuckInfo.name()).thenReturn("stuck-info");
        when(stuckInfo.info()).thenAnswer(hang());
        DatRegistry registry = assertTimeoutPreemptively(BOUND,
                () -> builder(stuckName, provider("a", "a0"), stuckInfo, provider("z", "z0")).build());
        assertEquals(List.of("a0", "z0"), iaNames(registry));
        String reason = entry(registry, "stuck-info").unavailableReason();
        assertTrue(reason.contains("info() did not return within 300 ms"), reason);
        assertTrue(reason.contains(DatRegistry.CALL_TIMEOUT_PROPERTY), reason);
        String className = stuckName.getClass().getName();
        assertTrue(entry(registry, className).unavailableReason().contains("name() did not return within 300 ms"),
                entry(registry, className)::unavailableReason);
    }

    @Test
    void aConstructorThatNeverReturnsIsListedAsTimedOut() {
        ServiceLoader.Provider<DatProvider> stuck = new ServiceLoader.Provider<>() {
            @Override
            public Class<? extends DatProvider> type() {
                return ClassNamedProvider.class;
            }

            @Override
            public DatProvider get() {
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IllegalStateException("released");
            }
        };
        DatProvider good = provider("good", "good0");
        List<ServiceLoader.Provider<DatProvider>> found = List.of(stuck, new GivenForTest(good));
        DatRegistry registry = assertTimeoutPreemptively(BOUND, () -> DatRegistry.builder().logger(log)
                .properties(Map.of(DatRegistry.CALL_TIMEOUT_PROPERTY, LIMIT_MS))
                .discover(found, DiscoverySource.SERVICE_LOADER).build());
        assertEquals(List.of("good0"), iaNames(registry));
        String reason = entry(registry, ClassNamedProvider.class.getName()).unavailableReason();
        assertTrue(reason.contains("did not return within 300 ms"), reason);
    }

    @Test
    void aDescribeThatNeverReturnsMakesOnlyThatDatConfIaUnavailable() throws IOException {
        DatProvider loopback = provider("loopback", "loopback0");
        when(loopback.describe("stuck0", "")).thenAnswer(hang());
        when(loopback.describe("fine0", "")).thenReturn(ia("fine0", "loopback"));
        Path conf = Files.writeString(dir.resolve("dat.conf"), """
                stuck0 u1.2 threadsafe default loopback dapl.1.2 "" ""
                fine0 u1.2 threadsafe default loopback dapl.1.2 "" ""
                """);
        DatRegistry registry = assertTimeoutPreemptively(BOUND, () -> builder(loopback).datConf(conf).build());
        IaEntry stuck = registry.ias().stream().filter(i -> i.name().equals("stuck0")).findFirst().orElseThrow();
        assertTrue(stuck.unavailableReason().contains("did not return within 300 ms"), stuck.unavailableReason());
        assertTrue(registry.ias().stream().anyMatch(i -> i.name().equals("fine0") && i.available()));
    }

    @Test
    void anOpenThatNeverReturnsFailsWithTheLimitAndClosesALateIa() throws Exception {
        DatProvider slow = provider("slow", "slow0");
        DatIa late = mock(DatIa.class);
        CountDownLatch opening = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        when(slow.open(anyString(), anyString(), anyInt())).thenAnswer(invocation -> {
            opening.countDown();
            assertTrue(finish.await(30, TimeUnit.SECONDS), "the test never let the open finish");
            return late;
        });
        DatRegistry registry = builder(slow).build();
        DatException e = assertTimeoutPreemptively(BOUND, () -> assertThrows(DatException.class,
                () -> registry.open("slow0")));
        assertTrue(e.is(DatReturn.TIMEOUT_EXPIRED), e::toString);
        assertTrue(e.getMessage().contains("did not return within 300 ms"), e.getMessage());
        assertTrue(e.getMessage().contains("slow0"), e.getMessage());
        assertTrue(opening.await(10, TimeUnit.SECONDS), "the provider's open was never called");
        finish.countDown();
        // The IA the provider hands over after the caller gave up belongs to no one: the registry closes it.
        verify(late, timeout(10_000)).close();
    }

    @Test
    void stackOverflowOutOfMemoryLinkageAndServiceErrorsBecomeReasons() {
        DatProvider overflow = mock(DatProvider.class);
        when(overflow.name()).thenReturn("overflow");
        when(overflow.info()).thenThrow(new StackOverflowError());
        DatProvider oom = mock(DatProvider.class);
        when(oom.name()).thenReturn("oom");
        when(oom.info()).thenThrow(new OutOfMemoryError("Java heap space"));
        DatProvider linkage = mock(DatProvider.class);
        when(linkage.name()).thenThrow(new NoClassDefFoundError("com/example/Missing"));
        DatProvider service = mock(DatProvider.class);
        when(service.name()).thenReturn("service");
        when(service.info()).thenThrow(new ServiceConfigurationError("nested lookup failed"));

        DatRegistry registry = assertTimeoutPreemptively(BOUND,
                () -> builder(overflow, provider("a", "a0"), oom, linkage, service).build());

        assertEquals(List.of("a0"), iaNames(registry));
        assertEquals("info() threw java.lang.StackOverflowError", entry(registry, "overflow").unavailableReason());
        assertEquals("info() threw java.lang.OutOfMemoryError: Java heap space",
                entry(registry, "oom").unavailableReason());
        assertTrue(entry(registry, linkage.getClass().getName()).unavailableReason()
                .contains("NoClassDefFoundError: com/example/Missing"));
        assertTrue(entry(registry, "service").unavailableReason().contains("nested lookup failed"));
    }

    @Test
    void failuresAreOneLineWarningsWithTheTraceOnlyAtDebug() throws IOException {
        DatProvider broken = mock(DatProvider.class);
        when(broken.name()).thenReturn("broken");
        when(broken.info()).thenThrow(new IllegalStateException("boom"));
        Path conf = Files.writeString(dir.resolve("dat.conf"),
                "x0 u1.2 threadsafe default " + ClassNamedProvider.Throwing.class.getName() + " dapl.1.2 \"\" \"\"\n");
        builder(broken).datConf(conf).build();
        List<RecordingLogger.Entry> warnings = log.entries().stream().filter(e -> e.level() == Level.WARNING)
                .toList();
        assertFalse(warnings.isEmpty());
        for (RecordingLogger.Entry warning : warnings) {
            assertNull(warning.thrown(), () -> "a warning carries a stack trace: " + warning);
            assertFalse(warning.message().contains("\n"), () -> "a warning of more than one line: " + warning);
        }
        assertTrue(warnings.stream().anyMatch(w -> w.message().contains("broken")
                && w.message().contains("IllegalStateException: boom")), warnings::toString);
        assertTrue(warnings.stream().anyMatch(w -> w.message().contains(ClassNamedProvider.Throwing.class.getName())
                && w.message().contains("cannot start")), warnings::toString);
        assertTrue(log.entries().stream().anyMatch(e -> e.level() == Level.DEBUG && e.thrown() != null),
                "the trace stays available at DEBUG");
    }

    @Test
    void eachProviderCallIsAnnouncedBeforeItIsMade() {
        AtomicBoolean announced = new AtomicBoolean();
        DatProvider exiting = mock(DatProvider.class);
        when(exiting.name()).thenReturn("exiting");
        when(exiting.info()).thenAnswer(invocation -> {
            // What a provider calling System.exit here would leave as the last word of the registry.
            announced.set(log.entries().stream().anyMatch(e -> e.level() == Level.DEBUG
                    && e.message().contains("exiting") && e.message().contains("info()")));
            return DatProviderInfo.available("exiting", "1.0", List.of(), List.of());
        });
        builder(exiting).build();
        assertTrue(announced.get(), () -> "no DEBUG record named the provider before info(): " + log.entries());
    }

    @Test
    void aDatConfThatIsAFifoIsRefusedWithoutBlocking() throws Exception {
        Path fifo = mkfifo(dir.resolve("dat.conf"));
        DatRegistry registry = assertTimeoutPreemptively(BOUND, () -> builder(provider("a", "a0")).environment(
                Map.of(DatRegistry.DAT_CONF_ENV, fifo.toString())).build());
        assertEquals(List.of("a0"), iaNames(registry));
        assertTrue(log.entries().stream().anyMatch(e -> e.level() == Level.WARNING
                && e.message().contains(fifo.toString()) && e.message().contains("FIFO")), log.entries()::toString);
    }

    @Test
    void aDatConfThatIsADirectoryIsOneLineNamingTheFile() throws IOException {
        Path directory = Files.createDirectory(dir.resolve("conf.d"));
        builder(provider("a", "a0")).datConf(directory).build();
        List<RecordingLogger.Entry> found = log.find(Level.WARNING, directory.toString());
        assertEquals(1, found.size(), log.entries()::toString);
        assertTrue(found.getFirst().message().contains("directory"), found.getFirst()::message);
        assertNull(found.getFirst().thrown());
    }

    @Test
    void providerAndIaNamesWithControlCharactersAreRefusedByCodePoint() {
        DatProvider forged = mock(DatProvider.class);
        when(forged.name()).thenReturn("evil\n\u001b[31mloopback0  loopback");
        DatProvider bidi = mock(DatProvider.class);
        when(bidi.name()).thenReturn("bidi");
        DatIaInfo reversed = ia("ia\u202e0", "bidi");
        when(bidi.info()).thenReturn(DatProviderInfo.available("bidi", "1.0", List.of(reversed), List.of()));
        DatProvider empty = mock(DatProvider.class);
        when(empty.name()).thenReturn("blank-ia");
        when(empty.info()).thenReturn(DatProviderInfo.available("blank-ia", "1.0", List.of(ia("\ufeff", "blank-ia")),
                List.of()));
        DatRegistry registry = builder(forged, bidi, empty, provider("a", "a0")).build();

        assertEquals(List.of("a0"), iaNames(registry));
        for (ProviderEntry p : registry.providers()) {
            assertPrintable(p.name());
            if (!p.available()) {
                assertPrintable(p.unavailableReason());
            }
        }
        ProviderEntry evil = registry.providers().getFirst();
        assertFalse(evil.available());
        assertTrue(evil.unavailableReason().contains("U+000A"), evil::unavailableReason);
        assertTrue(entry(registry, "bidi").unavailableReason().contains("U+202E"),
                entry(registry, "bidi")::unavailableReason);
        assertTrue(entry(registry, "blank-ia").unavailableReason().contains("U+FEFF"),
                entry(registry, "blank-ia")::unavailableReason);
        assertTrue(log.entries().stream().allMatch(e -> isPrintable(e.message())), log.entries()::toString);
    }

    @Test
    void aProvidersOwnReasonAndExceptionTextAreMadeSafeToPrint() {
        DatProvider unavailable = mock(DatProvider.class);
        when(unavailable.name()).thenReturn("sly");
        when(unavailable.info()).thenReturn(DatProviderInfo.unavailable("sly", "1.0",
                "no device\n\u001b[32mloopback0 loopback available", List.of()));
        DatProvider thrower = mock(DatProvider.class);
        when(thrower.name()).thenReturn("thrower");
        when(thrower.info()).thenThrow(new IllegalStateException("line one\r\nline two\u0007"));
        DatRegistry registry = builder(unavailable, thrower).build();
        assertPrintable(entry(registry, "sly").unavailableReason());
        assertTrue(entry(registry, "sly").unavailableReason().contains("no device"));
        assertPrintable(entry(registry, "thrower").unavailableReason());
        assertTrue(entry(registry, "thrower").unavailableReason().contains("line two"));
        assertTrue(log.entries().stream().allMatch(e -> isPrintable(e.message())), log.entries()::toString);
    }

    @Test
    void anIaNameAskedForIsEchoedEscaped() {
        DatRegistry registry = builder(provider("a", "a0")).build();
        DatException e = assertThrows(DatException.class, () -> registry.open("a0\n\u001b[2J"));
        assertPrintable(e.getMessage());
        assertTrue(e.getMessage().contains("\\n\\x1b[2J"), e::getMessage);
    }

    static void assertPrintable(String text) {
        assertTrue(isPrintable(text), () -> "not safe to print: " + text.codePoints()
                .mapToObj(c -> c < 0x20 || c > 0x7e ? String.format("\\u%04X", c) : Character.toString(c))
                .reduce("", String::concat));
    }

    static boolean isPrintable(String text) {
        return text.codePoints().noneMatch(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
                || Character.getType(c) == Character.LINE_SEPARATOR
                || Character.getType(c) == Character.PARAGRAPH_SEPARATOR);
    }

    static Path mkfifo(Path path) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mkfifo did not finish");
        assertEquals(0, p.exitValue(), "mkfifo failed");
        return path;
    }

    /** A provider instance presented as a service loader presents one. */
    private record GivenForTest(DatProvider instance) implements ServiceLoader.Provider<DatProvider> {

        @Override
        public Class<? extends DatProvider> type() {
            return instance.getClass();
        }

        @Override
        public DatProvider get() {
            return instance;
        }
    }
}
