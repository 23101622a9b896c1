// Types for vite-plugin-pwa's `virtual:pwa-register` (the framework-free client).
/// <reference types="vite-plugin-pwa/vanillajs" />
