// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.api.DatReturn;
import dat.registry.DatRegistry;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import dat.spi.DatSetting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * Providers that misbehave the way a vendor's might, reached by the command through a {@code dat.conf} that names
 * them by class (the registry's own way to load a provider no service loader lists). Each offers the IA its
 * {@code dat.conf} line names: {@code hang0}, whose open never returns; {@code forger0}, whose strings carry newlines
 * and terminal escapes in the places the registry does not validate; {@code overflow0}, whose open overflows the
 * stack; {@code absent0}, unavailable with a forging reason; {@code slowclose0}, a loopback IA slow to close.
 */
final class HostileProviders {

    /** A newline, then a row that looks like the table's, then ANSI: clear the screen, cursor home, red. */
    static final String FORGERY = "\nloopback9  loopback  1.0      available\u001b[2J\u001b[H\u001b[31m\u009b2J\u202e";

    /** The providers the registry asked for their IAs ({@code info()} or {@code describe()}), by name. */
    static final Set<String> ASKED = ConcurrentHashMap.newKeySet();

    /** Released by {@link #withConf}'s caller when a test ends, so a hung open does not outlive the test. */
    static volatile CountDownLatch release = new CountDownLatch(1);

    /** How long {@link SlowClose}'s IA takes to close. */
    static final Duration CLOSE_TAKES = Duration.ofSeconds(4);

    private HostileProviders() {
    }

    /**
     * Runs {@code body} with {@code dat.conf} naming every provider of this class, then restores the property and
     * releases any open still hanging.
     */
    static <T> T withConf(Path dir, Supplier<T> body) {
        // The registry instantiates a dat.conf class reflectively: the test package must be exported to it.
        HostileProviders.class.getModule().addExports(HostileProviders.class.getPackageName(),
                DatRegistry.class.getModule());
        Path conf = dir.resolve("dat.conf");
        StringBuilder text = new StringBuilder();
        for (Class<?> type : List.of(Hang.class, Forger.class, Overflow.class, Absent.class,
                SlowClose.class)) {
            String ia = type.getSimpleName().toLowerCase(Locale.ROOT) + "0";
            text.append(ia).append(" u1.2 threadsafe default ").append(type.getName()).append(" dapl.1.2 \"\" \"\"\n");
        }
        try {
            Files.writeString(conf, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String before = System.getProperty(DatRegistry.DAT_CONF_PROPERTY);
        System.setProperty(DatRegistry.DAT_CONF_PROPERTY, conf.toString());
        release = new CountDownLatch(1);
        try {
            return body.get();
        } finally {
            release.countDown();
            if (before == null) {
                System.clearProperty(DatRegistry.DAT_CONF_PROPERTY);
            } else {
                System.setProperty(DatRegistry.DAT_CONF_PROPERTY, before);
            }
        }
    }

    /** Common to all: a name, IAs only as {@code dat.conf} names them. */
    abstract static class Base implements DatProvider {
        @Override
        public String name() {
            return getClass().getSimpleName().toLowerCase(Locale.ROOT);
        }

        @Override
        public DatProviderInfo info() {
            ASKED.add(name());
            return DatProviderInfo.available(name(), "1.0", List.of(), List.of());
        }

        @Override
        public DatIaInfo describe(String iaName, String iaParams) {
            ASKED.add(name());
            return new DatIaInfo(iaName, iaParams, DatProviderAttr.builder().providerName(name()).build(),
                    DatIaAttr.builder().adapterName(iaName).build());
        }

        @Override
        public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
            throw new DatException(DatReturn.NOT_IMPLEMENTED, "test provider " + name());
        }
    }

    /** An open that never returns (until the test releases it, or the command gives up and interrupts it). */
    public static final class Hang extends Base {
        /** Instantiated by the registry. */
        public Hang() {
        }

        @Override
        public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new DatException(DatReturn.INTERNAL_ERROR, "hang0 released");
        }
    }

    /** Strings that would forge a row or move the cursor, where the registry does not look. */
    public static final class Forger extends Base {
        /** Instantiated by the registry. */
        public Forger() {
        }

        @Override
        public DatProviderInfo info() {
            ASKED.add(name());
            // The registry refuses a forged name or version at entry (the provider would be unavailable and print
            // nothing else); the settings, attribute strings and exception text below it passes on as they are.
            return DatProviderInfo.available(name(), "1.0", List.of(),
                    List.of(new DatSetting("dat.forger.mode" + FORGERY, "a" + FORGERY, "b" + FORGERY,
                            "what it does" + FORGERY)));
        }

        @Override
        public DatIaInfo describe(String iaName, String iaParams) {
            ASKED.add(name());
            return new DatIaInfo(iaName, iaParams, DatProviderAttr.builder().providerName(name()).build(),
                    DatIaAttr.builder().adapterName("hca" + FORGERY).build());
        }

        @Override
        public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, "no memory" + FORGERY);
        }
    }

    /** An open that overflows the stack. */
    public static final class Overflow extends Base {
        /** Instantiated by the registry. */
        public Overflow() {
        }

        @Override
        public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
            throw new StackOverflowError();
        }
    }

    /**
     * A loopback IA whose close takes {@link #CLOSE_TAKES} first, as an ofi IA's may while a stopped peer has not
     * taken in its last request. The close goes on when the wait is interrupted (the command gave up on it), so no
     * loopback IA outlives the test.
     */
    public static final class SlowClose extends Base {
        /** Instantiated by the registry. */
        public SlowClose() {
        }

        @Override
        public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
            DatIa ia = DatRegistry.load().open("loopback0", asyncEvdMinQlen);
            return (DatIa) Proxy.newProxyInstance(DatIa.class.getClassLoader(), new Class<?>[] {DatIa.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("close")) {
                            try {
                                Thread.sleep(CLOSE_TAKES);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        try {
                            return method.invoke(ia, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    /** Unavailable, with a reason that forges a row. */
    public static final class Absent extends Base {
        /** Instantiated by the registry. */
        public Absent() {
        }

        @Override
        public DatProviderInfo info() {
            ASKED.add(name());
            return DatProviderInfo.unavailable(name(), "1.0", "no device" + FORGERY, List.of());
        }
    }
}
