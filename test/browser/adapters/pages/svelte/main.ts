import { mount, unmount } from 'svelte';
import { install } from '../harness.js';
import App from './App.svelte';
import { props } from './config.svelte.js';

let app: Record<string, unknown> | undefined;
install({
  mount(config) {
    props.config = config;
    app = mount(App, { target: document.getElementById('app')!, props });
  },
  setUrls(urls) {
    if (urls.poll !== undefined) props.config.poll.url = urls.poll;
    if (urls.fetch !== undefined) props.config.fetch.url = urls.fetch;
    if (urls.operation !== undefined) props.config.operation.url = urls.operation;
  },
  unmount() {
    if (app) void unmount(app);
    app = undefined;
  },
});
