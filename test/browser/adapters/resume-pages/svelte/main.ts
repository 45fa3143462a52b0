import { mount } from 'svelte';
import { recordShown } from '../app.js';
import App from './App.svelte';

recordShown();
mount(App, { target: document.getElementById('app')! });
