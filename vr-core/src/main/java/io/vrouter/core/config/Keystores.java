package io.vrouter.core.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;

/** The server's TLS key and certificate, read the same way for every interface that serves TLS. */
public final class Keystores {
    private Keystores() {
    }

    /** The key managers of a keystore file: JKS when its name ends in {@code .jks}, PKCS12 otherwise. */
    public static KeyManagerFactory keyManagers(Path keystore, String password) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance(keystore.toString().endsWith(".jks") ? "JKS" : "PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, password.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password.toCharArray());
        return kmf;
    }
}
