import { mount } from 'svelte';
import { recordShown } from '../app.js';
import { operationHook, recordTrail } from '../operation-app.js';
import App from './App.svelte';
import Operation from './Operation.svelte';

recordShown();
recordTrail();
mount(operationHook ? Operation : App, { target: document.getElementById('app')! });
