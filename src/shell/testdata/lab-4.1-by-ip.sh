# Lab guide §4.1: mysql from a dry-run yaml, exposed; WordPress with the mysql Service's IP as its database host.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl run mysql --image=hub.laoma.cloud/library/mysql --image-pull-policy=IfNotPresent \
--env=MYSQL_ROOT_PASSWORD=redhat --env=MYSQL_USER=tom \
--env=MYSQL_PASSWORD=redhat --env=MYSQL_DATABASE=blog \
--dry-run=client -o yaml > pod-mysql.yaml
$ cat pod-mysql.yaml
$ kubectl apply -f pod-mysql.yaml
$ kubectl expose pod mysql --port=3306 --target-port=3306
$ kubectl get svc mysql
# The guide types the IP it saw (10.111.69.45 there).
$ MYSQL_IP=$(kubectl get svc mysql -o jsonpath='{.spec.clusterIP}')
$ kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --image-pull-policy=IfNotPresent \
--env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat \
--env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST=$MYSQL_IP
$ kubectl expose pod wordpress --port=80 --target-port=80 --type NodePort
$ sleep 30
$ kubectl get pods -o wide
$ kubectl get svc
# WordPress answers: its database is reachable, so it sends the browser to its installer.
$ curl -I $(kubectl get svc wordpress -o jsonpath='{.spec.clusterIP}')
$ curl -s -o /dev/null -w "%{http_code}\n" http://10.1.8.31:$(kubectl get svc wordpress -o jsonpath='{.spec.ports[0].nodePort}')
# A WordPress whose database host does not answer shows WordPress's error page.
$ kubectl run wp-broken --image=hub.laoma.cloud/library/wordpress --env=WORDPRESS_DB_HOST=10.96.0.254
$ sleep 30
$ curl -s $(kubectl get pod wp-broken -o jsonpath='{.status.podIP}') | grep h1
